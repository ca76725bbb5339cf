/**
 * The per-node load budget of the live index: a token bucket in keys per second, and one in value
 * bytes per second. Listing, resync, polling and the reads that notifications trigger all draw from
 * them, so however large the keyspace, its values, and however many changes arrive, the console
 * never visits or reads more keys per second on a node than CONSOLE_SCAN_BUDGET_PER_S, nor more value
 * bytes than CONSOLE_READ_BYTES_PER_S (each plus one burst of a tenth of a second): huge values slow
 * the listing down instead of breaking it (issue 32 row 7). The one exception is a relist after a
 * gap, whose SCAN draws from a bucket of CONSOLE_HEAL_BUDGET_PER_S (node-watch.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_READ_BYTES_PER_S } from "../../../config";

/** A token bucket: `perS` units per second, bursts of a tenth of that. */
export interface Bucket {
  readonly perS: number;
  /** Largest single draw that does not exceed one burst: callers size their SCAN COUNT and chunks by it. */
  readonly burst: number;
  /** Waits until `units` may be spent now, then spends them. Draws are served in call order. */
  take(units: number, signal?: AbortSignal): Promise<void>;
}

/** Keys per second, with the value bytes per second beside it (`bytes`). */
export interface Budget extends Bucket {
  /** Value bytes read or hashed on the node: a read call's allowance is `bytes.burst`. */
  readonly bytes: Bucket;
}

export function createBudget(perS: number, bytesPerS = DEFAULT_READ_BYTES_PER_S): Budget {
  return { ...createBucket(perS), bytes: createBucket(bytesPerS) };
}

function createBucket(perS: number): Bucket {
  const burst = Math.max(1, Math.floor(perS / 10));
  let tokens = burst;
  let refilledAt = performance.now();
  let queue: Promise<void> = Promise.resolve();

  const refill = () => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - refilledAt) * perS) / 1000);
    refilledAt = now;
  };

  const draw = async (units: number, signal?: AbortSignal) => {
    refill();
    // A draw larger than the bucket runs into debt: the next draw waits until it is paid back.
    if (tokens < Math.min(units, burst)) {
      await sleep(((Math.min(units, burst) - tokens) * 1000) / perS, undefined, { signal });
      refill();
    }
    tokens -= units;
    if (tokens < 0) {
      await sleep((-tokens * 1000) / perS, undefined, { signal });
      refill();
    }
  };

  return {
    perS,
    burst,
    take(units, signal) {
      const turn = queue.then(() => draw(units, signal));
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}
