/**
 * The per-node load budget of the live index: a token bucket in keys per second. Listing, resync,
 * polling and the reads that notifications trigger all draw from it, so however large the keyspace
 * and however many changes arrive, the console never visits or reads more keys per second on a node
 * than CONSOLE_SCAN_BUDGET_PER_S (plus one burst of a tenth of a second).
 */
import { setTimeout as sleep } from "node:timers/promises";

export interface Budget {
  readonly perS: number;
  /** Largest single draw that does not exceed one burst: callers size their SCAN COUNT and chunks by it. */
  readonly burst: number;
  /** Waits until `keys` may be spent now, then spends them. Draws are served in call order. */
  take(keys: number, signal?: AbortSignal): Promise<void>;
}

export function createBudget(perS: number): Budget {
  const burst = Math.max(1, Math.floor(perS / 10));
  let tokens = burst;
  let refilledAt = performance.now();
  let queue: Promise<void> = Promise.resolve();

  const refill = () => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - refilledAt) * perS) / 1000);
    refilledAt = now;
  };

  const draw = async (keys: number, signal?: AbortSignal) => {
    refill();
    // A draw larger than the bucket runs into debt: the next draw waits until it is paid back.
    if (tokens < Math.min(keys, burst)) {
      await sleep(((Math.min(keys, burst) - tokens) * 1000) / perS, undefined, { signal });
      refill();
    }
    tokens -= keys;
    if (tokens < 0) {
      await sleep((-tokens * 1000) / perS, undefined, { signal });
      refill();
    }
  };

  return {
    perS,
    burst,
    take(keys, signal) {
      const turn = queue.then(() => draw(keys, signal));
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}
