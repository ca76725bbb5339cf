/**
 * Reads lock keys over the node's command connection and settles each in the store (the informer's
 * delta handler): what the read found, why a key went (the event the change queue kept for it), and
 * the values that came and went between two reads, counted as brief holds.
 */
import type { NodeKeyState } from "../read/key-state";
import type { Budget } from "./budget";
import { briefHolds, type KeyEvents } from "./change-queue";
import type { Clock } from "./clock";
import type { NodeConnections } from "./connections";
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
}

export class KeyReader {
  readonly #options: KeyReaderOptions;

  constructor(options: KeyReaderOptions) {
    this.#options = options;
  }

  /** Reads keys notifications named: each costs one from the budget. */
  async readChanged(keys: readonly Buffer[]): Promise<void> {
    await this.#options.budget.take(keys.length, this.#options.signal);
    await this.read(keys);
  }

  /**
   * Reads keys already paid for in keys (a listing's SCAN paid for what it returned); resolves to
   * the locks found. Each call reads until the byte budget's burst is spent (huge values: one per
   * call), and its bytes are drawn afterwards: the next call waits until they are paid back.
   */
  async read(keys: readonly Buffer[]): Promise<number> {
    const { readKeys, budget, clock, signal } = this.#options;
    let found = 0;
    for (let start = 0; start < keys.length;) {
      const readAtMs = clock.now();
      const { states, touchedBytes } = await readKeys(
        keys.slice(start),
        readAtMs,
        budget.bytes.burst,
      );
      states.forEach((state, index) => {
        if (state) found += 1;
        this.settle(keys[start + index]!.toString("latin1"), state, readAtMs);
      });
      start += Math.max(1, states.length);
      await budget.bytes.take(touchedBytes, signal);
    }
    return found;
  }

  /** Records what the node holds under `name`, as read at `readAtMs` (null: nothing). */
  settle(name: string, read: NodeKeyState | null, readAtMs: number): void {
    const { store, takeEvents, onBrief } = this.#options;
    const { cause, sets } = takeEvents(name);
    const brief = briefHolds(sets, read, store.get(name)?.value);
    if (brief > 0) onBrief?.(name, brief);
    if (read === null) store.remove(name, cause ?? "unknown");
    else store.put(name, read, readAtMs);
  }
}
