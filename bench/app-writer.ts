/**
 * A busy application for the busy-app section: on each of its masters, a steady rate of writes
 * that are no locks — cache pages `SET orders:<id>:view … EX` under the locks' own prefix, cache
 * entries `SET cache:page:<id> … EX`, carts `HSET orders:<id>:cart` — paced every 10 ms in
 * pipelines, over a bounded set of ids so the keyspace stays the same size. Counts what it achieved.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";

const TICK_MS = 10;
/** Ids cycled per key kind: the keyspace stays ~3 × this per master. */
const IDS = 50_000;
const PAGE = `<html>${"x".repeat(200)}</html>`;

/** One write of the mix, by its sequence number: 40% cache pages, 30% cache entries, 30% carts. */
function write(pipeline: ReturnType<Redis["pipeline"]>, sequence: number): void {
  const id = sequence % IDS;
  const kind = sequence % 10;
  if (kind < 4) pipeline.set(`orders:${id}:view`, PAGE, "EX", 30);
  else if (kind < 7) pipeline.set(`cache:page:${id}`, PAGE, "EX", 30);
  else pipeline.hset(`orders:${id}:cart`, "sku", `item-${sequence}`, "qty", kind);
}

export interface AppWriter {
  /** Writes acknowledged so far, over every master. */
  readonly written: () => number;
  stop(): Promise<void>;
}

/** Starts writing `ratePerS` keys per second on each of `masters`, until stop(). */
export function startAppWriter(masters: readonly Redis[], ratePerS: number): AppWriter {
  let written = 0;
  let stopped = false;
  const loop = async (master: Redis, offset: number) => {
    const startedAt = performance.now();
    let sent = 0;
    while (!stopped) {
      const due = Math.floor(((performance.now() - startedAt) * ratePerS) / 1000) - sent;
      // Never more than a second behind: a starved writer does not burst to catch up.
      const count = Math.min(due, ratePerS);
      if (count > 0) {
        const pipeline = master.pipeline();
        for (let index = 0; index < count; index += 1) write(pipeline, offset + sent + index);
        sent += due;
        await pipeline.exec();
        written += count;
      }
      await sleep(TICK_MS);
    }
  };
  const loops = masters.map((master, index) => loop(master, index * 7_919));
  return {
    written: () => written,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
