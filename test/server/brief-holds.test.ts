/**
 * Brief holds on real masters: a value that came and went between two reads of a key is counted
 * as a change of hands only when it could have been a lock. An application's cache writes (values
 * that are no lock, present at the read) count nothing; a lock taken and released between two reads
 * (SET and DEL in one MULTI: no read can fall between them) counts once; and a shape whose locks
 * are always gone by the read is not learned as lock-free (its brief holds keep it read).
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(3);
/** Reads without a lock before a shape is skipped: low, so that a test can reach it. */
const SKIP_AFTER_READS = 20;
/** Brief holds are gathered 500 ms per lock (brief-holds.ts), then counted on a ~100 ms tick. */
const BRIEF_SETTLE_MS = 1_000;
let nodes: Redis[];
let tc: TestConsole;
const key = (suffix: string) => `${tc.prefix}${suffix}`;
const token = (n: number) => n.toString(16).padStart(40, "0");

async function briefHoldsCounted(): Promise<number> {
  const metric = tc.ctx.metrics.registry.getSingleMetric("redlock_console_brief_holds_total");
  return (await metric!.get()).values[0]?.value ?? 0;
}

/** A lock taken and released on every node in one transaction: gone before any read of it. */
const takeAndRelease = (suffix: string, n: number) =>
  Promise.all(
    nodes.map((node) =>
      node.multi().set(key(suffix), token(n), "PX", 30_000).del(key(suffix)).exec(),
    ),
  );

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  tc = startTestConsole(masters.masters().urls, {
    resyncIntervalMs: 3_600_000,
    skipShapeAfterReads: SKIP_AFTER_READS,
    shapeSampleIntervalMs: 3_600_000,
  });
  await tc.sync();
  // Brief holds are counted only while the index is whole.
  await vi.waitFor(() => expect(tc.ctx.timeline.horizon().completeSince).not.toBeNull(), {
    timeout: 10_000,
  });
});

afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

describe("brief holds: values that could have been locks, not the application's writes", () => {
  it("an application writing cache values beside a held lock (three SETs per key) counts no brief hold", async () => {
    await Promise.all(nodes.map((node) => node.set(key("orders:1"), token(1), "PX", 60_000)));
    const before = await briefHoldsCounted();
    for (const node of nodes) {
      const pipeline = node.pipeline();
      for (let id = 0; id < 50; id += 1)
        for (let write = 0; write < 3; write += 1)
          pipeline.set(key(`cache:${id}`), JSON.stringify({ id, write }), "EX", 60);
      await pipeline.exec();
    }
    await tc.sync();
    await sleep(BRIEF_SETTLE_MS);
    expect((await briefHoldsCounted()) - before).toBe(0);
    expect(tc.ctx.timeline.activity(key("cache:0"), Date.now()).handsLastHour).toBe(0);
    expect(tc.ctx.index.row(key("orders:1"), Date.now())?.state).toBe("held");
  });

  it("a lock taken and released between two reads still counts as one change of hands", async () => {
    const before = await briefHoldsCounted();
    await takeAndRelease("invoice:1", 1);
    await tc.sync();
    await vi.waitFor(async () => expect((await briefHoldsCounted()) - before).toBe(1), {
      timeout: 5_000,
    });
    expect(tc.ctx.timeline.activity(key("invoice:1"), Date.now()).handsLastHour).toBe(1);
  });

  it("a shape whose locks are always released before the read is not learned as lock-free: every one is counted", async () => {
    const before = await briefHoldsCounted();
    const rounds = SKIP_AFTER_READS * 2;
    for (let n = 0; n < rounds; n += 1) await takeAndRelease(`jobs:${n}`, n);
    await tc.sync();
    await vi.waitFor(async () => expect((await briefHoldsCounted()) - before).toBe(rounds), {
      timeout: 5_000,
    });
    const skipped = tc.ctx.index.nodeStatus(0).eventReads?.skippedShapes ?? [];
    expect(
      skipped.map((figures) => figures.shape).filter((shape) => shape.includes("jobs")),
    ).toEqual([]);
  });
});
