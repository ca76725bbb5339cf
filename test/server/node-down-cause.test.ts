/**
 * Node cards on real private masters: a master shut down reads as what its connection met
 * ("connection refused"), the same on every poll, with since when; a master restarted empty says
 * how many held locks it lacks and on how many nodes they stand now.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as health from "@/app/api/health/route";
import * as nodesRoute from "@/app/api/nodes/route";
import type { HealthResponse, NodeInfo, NodesResponse } from "@/lib/api";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const STOPPED = 1;
const RESTARTED = 3;
const masters = usePrivateMasters(5);
let tc: TestConsole;
let clients: Redis[];

const readNodes = async () => (await call<NodesResponse>(nodesRoute.GET, "/api/nodes")).body;

/** Polls /api/nodes until `done` holds for node `index` (bounded for a loaded 2-core machine). */
async function nodeUntil(index: number, done: (node: NodeInfo) => boolean): Promise<NodeInfo> {
  const startedMs = Date.now();
  for (;;) {
    const node = (await readNodes()).nodes[index]!;
    if (done(node)) return node;
    if (Date.now() - startedMs > 15_000) throw new Error(`node ${index} never got there`);
    await sleep(100);
  }
}

beforeAll(async () => {
  clients = connect(masters.masters().urls);
  // The stopped and restarted masters refuse these test clients too: expected, not worth a log.
  for (const client of clients) client.on("error", () => undefined);
  tc = startTestConsole(masters.masters().urls, { nodeTimeoutMs: 300 });
  await tc.ready();
  await readNodes(); // every run_id known before anything stops
});

afterAll(async () => {
  await tc.close();
  await disconnect(clients);
});

describe("a master shut down", () => {
  it("reads 'connection refused' on every poll, down since it stopped", async () => {
    const port = masters.masters().masters[STOPPED]!.port;
    const stoppedAtMs = Date.now();
    process.kill(masters.masters().masters[STOPPED]!.pid(), "SIGKILL");
    // The first polls may still meet the closing connection; once refused, it stays refused.
    const first = await nodeUntil(STOPPED, (node) => node.down?.cause === "refused");
    const firstDownAtMs = Date.now();
    const expected = `connection refused: nothing listens on 127.0.0.1:${port}`;
    // Polls over more than 3 s: ioredis' own message alternates at that pace; the cause must not.
    for (let poll = 0; poll < 8; poll += 1) {
      const node = (await readNodes()).nodes[STOPPED]!;
      expect(node.status).toBe("down");
      expect(node.error).toBe(expected);
      expect(node.down).toEqual({
        sinceMs: first.down!.sinceMs,
        cause: "refused",
        message: expected,
      });
      expect(node.warnings).toEqual([
        { code: "unreachable", category: "down", message: `The node did not answer: ${expected}` },
      ]);
      await sleep(450);
    }
    expect(first.down!.sinceMs).toBeGreaterThanOrEqual(stoppedAtMs);
    expect(first.down!.sinceMs).toBeLessThanOrEqual(firstDownAtMs);
    const healthBody = (await call<HealthResponse>(health.GET, "/api/health")).body;
    expect(healthBody.nodes[STOPPED]).toMatchObject({ up: false, down: first.down });
  });

  it("is up again, with no down state, once it restarts", async () => {
    await masters.masters().restartEmpty(STOPPED);
    const node = await nodeUntil(STOPPED, (candidate) => candidate.status !== "down");
    expect(node.down).toBeNull();
    expect(node.error).toBeNull();
  });
});

describe("a master restarted empty", () => {
  it("says how many held locks lack it and where they stand, with the fix", async () => {
    const everywhere = Array.from({ length: 7 }, (_, index) => `${tc.prefix}all-${index}`);
    const onThree = [`${tc.prefix}three-0`, `${tc.prefix}three-1`];
    const value = "a".repeat(40);
    await Promise.all(
      everywhere.flatMap((key) => clients.map((client) => client.set(key, value, "PX", 120_000))),
    );
    await Promise.all(
      onThree.flatMap((key) =>
        [0, 1, 2].map((index) => clients[index]!.set(key, value, "PX", 120_000)),
      ),
    );
    await tc.sync();
    const before = (await readNodes()).nodes[RESTARTED]!;
    expect(before.restart ?? null).toBeNull();

    const restartAtMs = Date.now();
    await masters.masters().restartEmpty(RESTARTED);
    const node = await nodeUntil(RESTARTED, (candidate) => candidate.restart?.lockCount === 9);
    expect(node.status).toBe("up");
    expect(node.restart).toMatchObject({
      emptyKeyspace: true,
      lockCount: 9,
      locksLacking: [
        { holders: 4, locks: 7 },
        { holders: 3, locks: 2 },
      ],
    });
    // uptime_in_seconds is whole seconds: the start it gives is within a second of the real one.
    expect(node.restart!.atMs).toBeGreaterThanOrEqual(restartAtMs - 1_000);
    expect(node.restart!.atMs).toBeLessThanOrEqual(Date.now());
    const warning = node.warnings.find((candidate) => candidate.code === "restarted")!;
    expect(warning.category).toBe("restart");
    expect(warning.message).toContain(
      "with an empty keyspace: 7 locks now hold on 4 of 5 nodes (one more node lost and they stand on 3, the bare majority); 2 locks now hold on 3 of 5 nodes (the bare majority: one more node lost and another client can take them)",
    );
    expect(warning.message).toContain("appendfsync always");
    const healthBody = (await call<HealthResponse>(health.GET, "/api/health")).body;
    expect(healthBody.nodes[RESTARTED]!.restart).toMatchObject({
      lockCount: 9,
      emptyKeyspace: true,
    });
  });
});
