/** A fixed-capacity FIFO: the newest `capacity` items, oldest first. Memory stays bounded forever. */
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private next = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** Oldest first. */
  toArray(): T[] {
    const start = (this.next - this.size + this.capacity) % this.capacity;
    return Array.from(
      { length: this.size },
      (_, offset) => this.items[(start + offset) % this.capacity] as T,
    );
  }
}
