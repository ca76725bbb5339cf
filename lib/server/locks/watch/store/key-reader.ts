/**
 * Reads lock keys over the node's command connection and settles each in the store (the informer's
 * delta handler): what the read found, why a key went (the event the change queue kept for it), and
 * the values that came and went between two reads, counted as brief holds.
 */
import { MAX_RESOURCE_BYTES } from "@/lib/api";
import type { NodeKeyState } from "../../read/key-state";
import type { Budget } from "../io/budget";
import { briefHolds, type KeyEvents } from "./change-queue";
import type { Clock } from "../io/clock";
import type { NodeConnections } from "../io/connections";
import type { NodeStore } from "./node-store";

export interface KeyReaderOptions {
  readonly readKeys: NodeConnections["readKeys"];
  readonly budget: Budget;
  readonly clock: Clock;
  /** Aborts when the watch closes: a read waiting for the budget gives up. */
  readonly signal: AbortSignal;
  readonly store: Pick<NodeStore, "get" | "put" | "remove">;
  /** What the events said of `name` since its last read (the change queue). */
  readonly takeEvents: (name: string) => KeyEvents;
  readonly onBrief?: (key: string, holds: number) => void;
  /**
   * Every key read, and whether it held a lock or showed one came and went (a brief hold): what
   * the shape table learns from.
   */
  readonly onRead?: (name: string, isLock: boolean) => void;
}

export class KeyReader {
  readonly #options: KeyReaderOptions;
  /** Keys being read now (latin1 name -> reads under way): their answer may predate a change. */
  readonly #reading = new Map<string, number>();

  constructor(options: KeyReaderOptions) {
    this.#options = options;
  }

  /** Reads keys notifications named: each costs one from the budget. */
  async readChanged(keys: readonly Buffer[]): Promise<void> {
    await this.#options.budget.take(keys.length, this.#options.signal);
    await this.read(keys);
  }

  /**
   * Whether a read of `name` is under way: a notification that arrives meanwhile may tell of a
   * change after it (the answer and the notification travel on two connections), so it must be read.
   */
  reading(name: string): boolean {
    return this.#reading.has(name);
  }

  /**
   * Reads keys already paid for in keys (a listing's SCAN paid for what it returned); resolves to
   * the locks found. Each call reads until the byte budget's burst is spent (huge values: one per
   * call), and its bytes are drawn afterwards: the next call waits until they are paid back.
   */
  async read(allKeys: readonly Buffer[]): Promise<number> {
    // Issue 49 row 9: a name longer than any route accepts is never read nor kept (a listing counts
    // it skipped): the console lists only locks it can open and act on.
    const keys = allKeys.filter((key) => key.length <= MAX_RESOURCE_BYTES);
    const names = keys.map((key) => key.toString("latin1"));
    for (const name of names) this.#reading.set(name, (this.#reading.get(name) ?? 0) + 1);
    try {
      return await this.#readChunks(keys, names);
    } finally {
      for (const name of names) {
        const count = this.#reading.get(name)! - 1;
        if (count > 0) this.#reading.set(name, count);
        else this.#reading.delete(name);
      }
    }
  }

  async #readChunks(keys: readonly Buffer[], names: readonly string[]): Promise<number> {
    const { readKeys, budget, clock, signal, onRead } = this.#options;
    let found = 0;
    for (let start = 0; start < keys.length;) {
      const { states, present, touchedBytes } = await readKeys(
        keys.slice(start),
        clock.now(),
        budget.bytes.burst,
      );
      // Dated when the answer came, not when the read went out: PTTL was taken in between, so
      // answer + PTTL is the latest the key can expire, never before it. Dated at sending, a read
      // that waited 11 ms (a loaded CI) put the expiry 11 ms early, and the expired hold's session
      // was read that much sooner than SESSION_CHECK_DELAY_MS after it.
      const readAtMs = clock.now();
      states.forEach((state, index) => {
        const name = names[start + index]!;
        if (state) found += 1;
        const brief = this.settle(name, state, readAtMs, present[index] ?? false);
        onRead?.(name, state !== null || brief > 0);
      });
      start += Math.max(1, states.length);
      await budget.bytes.take(touchedBytes, signal);
    }
    return found;
  }

  /**
   * Records what the node holds under `name`, as read at `readAtMs` (null: no lock; `present`: the
   * key exists, holding a value that is no lock); returns the brief holds it counted.
   */
  settle(name: string, read: NodeKeyState | null, readAtMs: number, present = false): number {
    const { store, takeEvents, onBrief } = this.#options;
    const { cause, sets } = takeEvents(name);
    const found = read ?? (present ? "not-a-lock" : null);
    const brief = briefHolds(sets, found, store.get(name)?.value);
    if (brief > 0) onBrief?.(name, brief);
    if (read === null) store.remove(name, cause ?? "unknown");
    else store.put(name, read, readAtMs);
    return brief;
  }
}
