/**
 * With keyspace events on, the console's reads follow lock traffic, not the application's writes
 * (issue 33 part 1), on real masters: cache entries `orders:N:view` beside `orders:N` locks stop
 * being read, the locks stay seen at once, a lock under a skipped shape still shows by the resync,
 * and a shape that starts holding locks is read again. Two consoles in turn: one without a resync
 * (the masters' read count is the console's event reads alone), one resyncing every 2 s.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { LockRow } from "@/lib/api";
import { waitersKey } from "@redlock-console/redlock";
import { callsPerCommand } from "@/scripts/command-stats";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { startTestConsole, type TestConsole } from "./helpers";

const { masters } = usePrivateMasters(3);
const RESYNC_MS = 2_000;
let tc: TestConsole;
let nodes: Redis[];
const token = (n: number) => n.toString(16).padStart(40, "0");
const key = (suffix: string) => `${tc.prefix}${suffix}`;
const row = (suffix: string): LockRow | undefined =>
  tc.ctx.index.row(key(suffix), Date.now()) ?? undefined;
const eventReads = () => tc.ctx.index.nodeStatus(0).eventReads;
/** Read script calls on the masters so far (the live index's only reads). */
const readCalls = async () => {
  const calls = await callsPerCommand(nodes);
  return (calls.evalsha ?? 0) + (calls.eval ?? 0);
};

/** The application: `count` cache entries `orders:<id>:view` (SET … EX) on every master. */
async function writeCache(fromId: number, count: number): Promise<void> {
  for (const node of nodes) {
    const pipeline = node.pipeline();
    for (let id = fromId; id < fromId + count; id += 1)
      pipeline.set(key(`orders:${id}:view`), `<html>${id}</html>`, "EX", 60);
    await pipeline.exec();
  }
}

const lockAll = (suffix: string, n: number) =>
  Promise.all(nodes.map((node) => node.set(key(suffix), token(n), "PX", 60_000)));

/** A console on the masters for the describe block, trained on 300 cache entries per master. */
function useTrainedConsole(resyncIntervalMs: number) {
  beforeAll(async () => {
    tc = startTestConsole(masters().urls, {
      resyncIntervalMs,
      skipShapeAfterReads: 200,
      // No sample reads (the cache entries have expiries: each would be an expiry sample): what
      // finds a lock under a skipped shape here is the resync alone.
      shapeSampleIntervalMs: 3_600_000,
      shapeSampleReadsPerS: 0,
    });
    await tc.sync();
    await lockAll("orders:42", 1);
    await writeCache(0, 300);
    await tc.sync();
  });
  afterAll(() => tc.close());
}

beforeAll(() => {
  nodes = connect(masters().urls);
});

afterAll(() => disconnect(nodes));

describe("a console without resync: every read it makes is an event read", () => {
  useTrainedConsole(3_600_000);

  it("an `orders:42` lock beside `orders:42:view` cache writes: the cache stops being read, the lock is seen at once", async () => {
    expect(row("orders:42")?.state).toBe("held");
    const shapes = eventReads()?.skippedShapes.map((figures) => figures.shape);
    expect(shapes).toContain(`${tc.prefix.replace(/[0-9a-f]{8}/, "*")}orders:*:view`);
    const before = await readCalls();
    await writeCache(300, 2_000); // 6,000 application writes
    await tc.sync();
    expect((await readCalls()) - before).toBe(0);
    await Promise.all(nodes.map((node) => node.del(key("orders:42"))));
    await lockAll("orders:43", 2);
    await tc.sync();
    expect(row("orders:42")).toBeUndefined();
    expect(row("orders:43")?.state).toBe("held");
  });

  it("keeps the library's keys of the locks' resources covered (waiters)", async () => {
    const member = JSON.stringify({ id: "w1", labels: {}, since: Date.now() });
    await Promise.all(
      nodes.map((node) => node.zadd(waitersKey(key("orders:43")), Date.now() + 60_000, member)),
    );
    await tc.sync();
    expect(row("orders:43")?.waiters.count).toBe(1);
  });
});

describe("a console resyncing every 2 s", () => {
  useTrainedConsole(RESYNC_MS);

  it("a lock under a shape the console learned to skip still shows, by the resync", async () => {
    // Each node's last listing, and whether one runs: the resync reads every key.
    const listedAt = () =>
      nodes
        .map((_, i) => tc.ctx.index.nodeStatus(i))
        .map((status) => `${status.listedAt}/${status.listing === null ? "" : "running"}`)
        .join();
    const listedBefore = listedAt();
    await lockAll("orders:9000:view", 3);
    await tc.sync();
    // Skipped on its notification (unless a resync happened to list it meanwhile).
    if (listedAt() === listedBefore && !listedBefore.includes("running"))
      expect(row("orders:9000:view")).toBeUndefined();
    const startedAt = Date.now();
    while (row("orders:9000:view")?.state !== "held") {
      // The bound the node card states: the resync interval plus one listing.
      expect(Date.now() - startedAt).toBeLessThan(RESYNC_MS + 5_000);
      await sleep(50);
    }
    expect(eventReads()?.lateByAtMostMs).toBeGreaterThanOrEqual(RESYNC_MS);
  });

  it("a shape that starts holding locks is read again on every change", async () => {
    // The resync found orders:9000:view: its shape is a lock shape now, on every node once its
    // own resync listed it (within the card's bound). The test before ends when the row is held,
    // which two of the three nodes' listings make; node 0's could still be running (ciE, beside
    // two busy loops: its skipped count was still 1).
    await vi.waitFor(
      () =>
        expect(
          nodes.map((_, i) => tc.ctx.index.nodeStatus(i).eventReads?.skippedShapeCount),
        ).toEqual(nodes.map(() => 0)),
      { timeout: RESYNC_MS + 5_000, interval: 50 },
    );
    await lockAll("orders:9001:view", 4);
    await tc.sync();
    expect(row("orders:9001:view")?.state).toBe("held");
  });
});
