/**
 * Reading a holder session on real masters (read-session.ts + liveness.ts): heartbeats and
 * connections written by hand per docs/holder-sessions.md. Private masters, started by this file:
 * their uptime is below the session window, which is what the restart guard is about.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLiveness, readSessions } from "@/lib/server/sessions/read-session";
import { Redis } from "ioredis";
import { sleep, usePrivateMasters } from "../masters";
import { FakeHolderSession } from "./fixtures/holder-session";
import { startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(3);
let tc: TestConsole;
const sessions: FakeHolderSession[] = [];
const open = async () => {
  const session = await FakeHolderSession.open(masters.masters().urls.map((url) => ({ url })));
  sessions.push(session);
  return session;
};
const liveness = (id: string) => readLiveness(tc.ctx.registry.nodes, id, tc.ctx.nodeDeadlineMs);

beforeAll(async () => {
  tc = startTestConsole(masters.masters().urls);
  await tc.ready();
});

afterAll(async () => {
  for (const session of sessions) session.close();
  await tc.close();
});

describe("reading a holder session on the nodes", () => {
  it("reads a fresh heartbeat on every node as alive, with its labels and when it was sent", async () => {
    const session = await open();
    await session.heartbeat(500);
    const readAt = Date.now();
    const result = await liveness(session.id);
    expect(result.state).toBe("alive");
    expect(result.labels).toEqual(session.labels);
    expect(result.lastSeenAt).toBeGreaterThan(readAt - 1_500);
    expect(result.lastSeenAt).toBeLessThanOrEqual(Date.now());
  });

  it("reads each node's value, PTTL, uptime and whether the heartbeat's connection is open", async () => {
    const session = await open();
    await session.heartbeat(10_000, [0, 1]);
    const [readings] = await readSessions(tc.ctx.registry.nodes, [session.id], 1_000);
    expect(readings!.map((reading) => reading.answered)).toEqual([true, true, true]);
    expect(readings![0]!.pttlMs).toBeGreaterThan(45_000);
    expect(readings![0]!.pttlMs).toBeLessThanOrEqual(50_000);
    expect(readings![0]!.clientConnected).toBe(true);
    expect(readings![0]!.uptimeS).toBeGreaterThanOrEqual(0);
    expect(readings![2]).toMatchObject({ sessionValue: null, pttlMs: -2, clientConnected: null });
    session.close();
    await expect
      .poll(async () => (await readSessions(tc.ctx.registry.nodes, [session.id], 1_000))[0]![0]!)
      .toMatchObject({ clientConnected: false });
  });

  it("never reads a late heartbeat with a closed connection as gone on nodes up for less than the session window", async () => {
    const session = await open();
    await session.heartbeat(20_000);
    session.close();
    const [readings] = await readSessions(tc.ctx.registry.nodes, [session.id], 1_000);
    expect(readings!.every((reading) => reading.uptimeS! < 60)).toBe(true);
    await expect.poll(async () => (await liveness(session.id)).state).toBe("unresponsive");
    const again = await readSessions(tc.ctx.registry.nodes, [session.id], 1_000);
    expect(again[0]!.every((reading) => reading.clientConnected === false)).toBe(true);
  });

  it("reads `timeout` fresh for a decision: a run-time change restarts since when it has been 0 at once", async () => {
    const session = await open();
    await session.heartbeat();
    const read = async () =>
      (await readSessions(tc.ctx.registry.nodes, [session.id], 1_000))[0]![0]!;
    const before = await read();
    expect(before.timeoutZeroForMs).toBeGreaterThan(0);
    expect(before.keyServerForMs).toBeGreaterThan(0);
    const server = new Redis(masters.masters().urls[0]!);
    try {
      await server.config("SET", "timeout", "300");
      // No wait for the periodic read: the decision's own read sees it.
      expect((await read()).timeoutZeroForMs).toBeNull();
      await server.config("SET", "timeout", "0");
      const after = await read();
      expect(after.timeoutZeroForMs).not.toBeNull();
      expect(after.timeoutZeroForMs!).toBeLessThan(before.timeoutZeroForMs!);
    } finally {
      await server.config("SET", "timeout", "0");
      server.disconnect();
    }
  });

  it("restarts since when the server served the key when the console's connection drops", async () => {
    const session = await open();
    await session.heartbeat();
    const read = async () =>
      (await readSessions(tc.ctx.registry.nodes, [session.id], 1_000))[0]![0]!;
    await sleep(300);
    const before = await read();
    expect(before.keyServerForMs).toBeGreaterThanOrEqual(300);
    const node = tc.ctx.registry.nodes[0]!;
    node.client.disconnect(true);
    await new Promise((resolve) => node.client.once("ready", resolve));
    const after = await read();
    expect(after.keyServerForMs!).toBeLessThan(before.keyServerForMs!);
    expect(after.timeoutZeroForMs ?? 0).toBeLessThan(before.timeoutZeroForMs!);
  });

  it("reads a late heartbeat whose connections are open as unresponsive", async () => {
    const session = await open();
    await session.heartbeat(10_000);
    expect((await liveness(session.id)).state).toBe("unresponsive");
  });

  it("reads a session without a heartbeat anywhere as unresponsive, and no session id as unknown", async () => {
    expect((await liveness("f".repeat(32))).state).toBe("unresponsive");
    expect(await readLiveness(tc.ctx.registry.nodes, null, 1_000)).toEqual({
      state: "unknown",
      lastSeenAt: null,
      labels: {},
    });
  });
});
