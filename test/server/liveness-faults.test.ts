// test-group: timed
/**
 * "Gone" is a guess: faults that close a live or paused holder's connections must never read as
 * gone (issue 39). The real library holds a lock in a process of its own
 * (test/redlock/fixtures/session-holder.ts, heartbeat every HEARTBEAT_MS) on five private masters,
 * up longer than the session window before the tests so that each may count toward "gone"; the
 * console reads its liveness (readLiveness, as the lock page and force-release do) back to back.
 *
 * - L4 proxies to three of the five masters stop for 8 s (every connection through them closes,
 *   reconnections are refused) while the holder keeps heartbeating on the other two: never gone.
 * - A SIGSTOPped holder whose connections close on servers whose `timeout` was set to 1 and back to
 *   0 after its last heartbeat (the rest CLIENT KILLed): never gone, for longer than the old 10 s
 *   cache of `timeout` and within the session window (later the keys expire and prove nothing).
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { HolderSessionState } from "@/lib/api";
import { readLiveness } from "@/lib/server/sessions/read-session";
import { lateAfterMs, sessionKey, sessionWindowMs } from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { forkHolder } from "../redlock/fixtures/fork-holder";
import { TcpProxy } from "../tcp-proxy";
import { startTestConsole, type TestConsole } from "./helpers";

const HEARTBEAT_MS = 300;
const LATE_MS = lateAfterMs(HEARTBEAT_MS);
const WINDOW_MS = sessionWindowMs(HEARTBEAT_MS);
const OUTAGE_MS = 8_000;

const masters = usePrivateMasters(5);
let servers: Redis[];
let tc: TestConsole;
const children: ChildProcess[] = [];
const proxies: TcpProxy[] = [];

beforeAll(async () => {
  servers = connect(masters.masters().urls);
  tc = startTestConsole(masters.masters().urls, { readLimitPerS: 10_000 });
  await tc.ready();
  // Every server up longer than the session window, so that each may count toward "gone".
  await sleep(WINDOW_MS + 1_000);
}, WINDOW_MS + 30_000);

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await tc?.close();
  await disconnect(servers);
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

interface Reading {
  readonly atMs: number;
  readonly state: HolderSessionState;
  readonly lastSeenAt: number | null;
}

async function readFor(sessionId: string, forMs: number): Promise<Reading[]> {
  const readings: Reading[] = [];
  const until = Date.now() + forMs;
  while (Date.now() < until) {
    const { state, lastSeenAt } = await readLiveness(
      tc.ctx.registry.nodes,
      sessionId,
      tc.ctx.nodeDeadlineMs,
    );
    readings.push({ atMs: Date.now(), state, lastSeenAt });
    await sleep(20);
  }
  return readings;
}

async function untilAlive(sessionId: string): Promise<void> {
  await expect
    .poll(async () => (await readLiveness(tc.ctx.registry.nodes, sessionId, 1_000)).state, {
      timeout: 5_000,
    })
    .toBe("alive");
}

describe("liveness never says gone for a holder that may still run", () => {
  it(`a holder behind L4 proxies to three of five masters that stop for ${OUTAGE_MS / 1000} s, heartbeating on the other two: unresponsive, never gone`, async () => {
    const urls = masters.masters().urls;
    for (const { port } of masters.masters().masters.slice(0, 3))
      proxies.push(await TcpProxy.start(port));
    const specs = [...proxies.map((proxy) => proxy.url), ...urls.slice(3)].map((url) => ({ url }));
    const resource = `${tc.prefix}behind-proxies:${randomUUID()}`;
    const { sessionId } = await forkHolder(
      { kind: "ioredis", specs, resource, heartbeatMs: HEARTBEAT_MS },
      (child) => children.push(child),
    );
    await untilAlive(sessionId);
    const stoppedAt = Date.now();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    let readings: Reading[];
    try {
      readings = await readFor(sessionId, OUTAGE_MS);
    } finally {
      await Promise.all(proxies.map((proxy) => proxy.resume()));
    }
    const states = new Set(readings.map((reading) => reading.state));
    expect([...states]).not.toContain("gone");
    // Late on three nodes, fresh on two: no majority either way.
    expect(
      new Set(readings.filter((r) => r.atMs > stoppedAt + LATE_MS + 100).map((r) => r.state)),
    ).toEqual(new Set(["unresponsive"]));
    // The holder never paused: its heartbeat on the other two stayed fresh throughout.
    const oldestMs = Math.max(...readings.map((r) => r.atMs - (r.lastSeenAt ?? 0)));
    expect(oldestMs).toBeLessThan(LATE_MS);
    await untilAlive(sessionId);
  }, 30_000);

  it("a SIGSTOPped holder whose connections close after `timeout` went 1 and back to 0 at run time (the rest CLIENT KILLed): unresponsive, never gone", async () => {
    const specs = masters.masters().urls.map((url) => ({ url }));
    const resource = `${tc.prefix}timeout-changed:${randomUUID()}`;
    const { child, sessionId } = await forkHolder(
      { kind: "ioredis", specs, resource, heartbeatMs: HEARTBEAT_MS },
      (forked) => children.push(forked),
    );
    await untilAlive(sessionId);
    const clientIds = await Promise.all(
      servers.map(
        async (server) =>
          (JSON.parse((await server.get(sessionKey(sessionId)))!) as { clientId: number }).clientId,
      ),
    );
    const stoppedAt = Date.now();
    child.kill("SIGSTOP");
    try {
      await Promise.all(servers.map((server) => server.config("SET", "timeout", "1")));
      await sleep(1_500);
      await Promise.all(servers.map((server) => server.config("SET", "timeout", "0")));
      await Promise.all(
        servers.map((server, index) =>
          server.client("KILL", "ID", String(clientIds[index])).catch(() => 0),
        ),
      );
      const open = await Promise.all(
        servers.map(async (server, index) =>
          String(await server.client("LIST", "ID", clientIds[index]!)),
        ),
      );
      expect(open.join("")).toBe("");
      // Past the old 10 s cache of `timeout`, and within the session window.
      const readings = await readFor(sessionId, stoppedAt + WINDOW_MS - 1_500 - Date.now());
      expect(readings.length).toBeGreaterThan(10);
      expect(new Set(readings.map((reading) => reading.state))).toEqual(new Set(["unresponsive"]));
    } finally {
      child.kill("SIGCONT");
      await Promise.all(servers.map((server) => server.config("SET", "timeout", "0")));
    }
  }, 40_000);
});
