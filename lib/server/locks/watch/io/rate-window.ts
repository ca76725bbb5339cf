/**
 * A count per second over a sliding window of about `windowMs` (the last full window weighted by
 * how much of it still falls in, plus the current one): two numbers, whatever the rate.
 */
export class RateWindow {
  readonly #windowMs: number;
  #startMs: number;
  #current = 0;
  #previous = 0;

  constructor(windowMs: number, nowMs: number) {
    this.#windowMs = windowMs;
    this.#startMs = nowMs;
  }

  add(nowMs: number, count = 1): void {
    this.#roll(nowMs);
    this.#current += count;
  }

  /** Events per second over the last window ending at `nowMs`. */
  perS(nowMs: number): number {
    this.#roll(nowMs);
    const intoCurrent = (nowMs - this.#startMs) / this.#windowMs;
    return ((this.#previous * (1 - intoCurrent) + this.#current) * 1000) / this.#windowMs;
  }

  #roll(nowMs: number): void {
    const windows = Math.floor((nowMs - this.#startMs) / this.#windowMs);
    if (windows <= 0) return;
    this.#previous = windows === 1 ? this.#current : 0;
    this.#current = 0;
    this.#startMs += windows * this.#windowMs;
  }
}
