// test-group: timed
/**
 * A holder session's state as the console tells it (`GET /api/locks/{resource}` →
 * `holderSession.state`), end to end: the real library holds a lock in a process of its own
 * (test/redlock/fixtures/session-holder.ts, using() with a 10 s TTL, heartbeat every 100 ms:
 * LATE_AFTER 300 ms, a 6 s session window), the real console reads the very nodes it holds on, for
 * the four client kinds (ioredis and node-redis, on the five shared masters and on three 3-primary
 * clusters). Real uptimes: the nodes are waited for until up longer than the 6 s window.
 *
 * The bounds, each from the moment the test acts (kill(), send()):
 * - SIGSTOP → every read begun LATE_AFTER + SLACK_MS later says "unresponsive" (its last heartbeat
 *   was sent before the stop), and none says "gone" while it stays stopped (its connections stay
 *   open); SIGCONT → every read begun LATE_AFTER + SLACK_MS later says "alive" (the overdue
 *   heartbeat goes out at once);
 * - SIGKILL → every read begun LATE_AFTER + SLACK_MS later says "gone" (its connections closed with
 *   it), and a force-release then tombstones the lock (issue 39: gone is a guess): a contender is
 *   refused until the explicit delete-now, after which it acquires without waiting;
 * - a 3 s busy event loop → "unresponsive" for every read begun LATE_AFTER + SLACK_MS after the
 *   request and answered before the 3 s are up, never "gone"; "alive" again for every read begun
 *   LATE_AFTER + SLACK_MS after the holder said it is idle;
 * - a server with `timeout 1` closes a SIGSTOPped holder's connections: never "gone" there.
 *
 * SLACK_MS covers delivering the signal or message and a heartbeat in flight at that moment; a
 * read's own time comes on top of each bound (the figures are printed at the end).
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import type { ForceReleaseResponse, HolderSessionState, LockResponse } from "@/lib/api";
import Redlock, { lateAfterMs, sessionKey, sessionWindowMs } from "@redlock-console/redlock";
import type { ClientKind } from "../lock-clients";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { forkHolder } from "../redlock/fixtures/fork-holder";
import type { NodeSpec } from "../redlock/fixtures/node-clients";
import { useLockNodes, type Topology } from "../redlock/fixtures/lock-nodes";
import type { HolderArgs, HolderMessage } from "../redlock/fixtures/session-holder";
import { call, consoleUrlsOf, startTestConsole, type TestConsole } from "./helpers";

const HEARTBEAT_MS = 100;
const LATE_MS = lateAfterMs(HEARTBEAT_MS);
const WINDOW_MS = sessionWindowMs(HEARTBEAT_MS);
/** Delivering a signal or message, and a heartbeat in flight when it came. */
const SLACK_MS = 50;
const BOUND_MS = LATE_MS + SLACK_MS;

/** The tests read back to back: past the console's per-client read budget. */
const READS = { readLimitPerS: 10_000 };

const HOLDER_KINDS = ["ioredis", "node-redis"] as const satisfies readonly ClientKind[];

/** One read of the lock's holder session: when it began and ended (performance.now()), what it said. */
interface Reading {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly state: HolderSessionState | null;
}

/** Per kind and transition: from the test's act to the first read that said the new state. */
const figures: Array<{ what: string; afterMs: number; readMs: number }> = [];

afterAll(() => {
  if (figures.length === 0) return;
  const byWhat = new Map<string, number[]>();
  for (const { what, afterMs } of figures) byWhat.set(what, [...(byWhat.get(what) ?? []), afterMs]);
  const reads = figures.map((f) => f.readMs);
  console.info(
    `session states (heartbeat ${HEARTBEAT_MS} ms, bound ${BOUND_MS} ms + the read): ` +
      [...byWhat]
        .map(
          ([what, ms]) =>
            `${what} after ${[...new Set([Math.min(...ms), Math.max(...ms)])].join("–")} ms`,
        )
        .join("; ") +
      `; the reads that saw them took ${Math.min(...reads)}–${Math.max(...reads)} ms`,
  );
});

/** Until every server has been up longer than the session window, so that each may prove "gone". */
async function untilUpLongerThanTheWindow(servers: readonly Redis[]): Promise<void> {
  const uptimes = await Promise.all(
    servers.map(async (server) => {
      const info = await server.info("server");
      return Number(/^uptime_in_seconds:(\d+)/m.exec(info)![1]);
    }),
  );
  const neededS = Math.floor(WINDOW_MS / 1000) + 1;
  await sleep(Math.max(0, neededS - Math.min(...uptimes)) * 1000 + 50);
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** Forks the holder and resolves once it holds `resource`, with its session id. */
async function spawnHolder(
  kind: ClientKind,
  specs: readonly NodeSpec[],
  resource: string,
): Promise<{ child: ChildProcess; sessionId: string }> {
  const args: HolderArgs = { kind, specs, resource, heartbeatMs: HEARTBEAT_MS };
  return forkHolder(args, (child) => children.push(child));
}

async function readState(resource: string): Promise<Reading> {
  const startedAt = performance.now();
  const response = await call<LockResponse>(
    lockRoute.GET,
    `/api/locks/${encodeURIComponent(resource)}`,
  );
  expect(response.status).toBe(200);
  return {
    startedAt,
    endedAt: performance.now(),
    state: response.body.holderSession?.state ?? null,
  };
}

/** Reads the holder's state back to back for `forMs`. */
async function readFor(resource: string, forMs: number): Promise<Reading[]> {
  const readings: Reading[] = [];
  const until = performance.now() + forMs;
  while (performance.now() < until) readings.push(await readState(resource));
  return readings;
}

/**
 * Reads until one says `state` (at most `forMs` after `actedAt`); records, as `what`, how long
 * after `actedAt` that read answered.
 */
async function readUntil(
  resource: string,
  state: HolderSessionState,
  actedAt: number,
  what?: string,
  forMs = 2_000,
): Promise<Reading[]> {
  const readings: Reading[] = [];
  const until = actedAt + forMs;
  while (performance.now() < until) {
    const reading = await readState(resource);
    readings.push(reading);
    if (reading.state === state) {
      if (what !== undefined)
        figures.push({
          what,
          afterMs: Math.round(reading.endedAt - actedAt),
          readMs: Math.round(reading.endedAt - reading.startedAt),
        });
      break;
    }
  }
  return readings;
}

/** What the reads begun at or after `fromMs` (and answered before `toMs`) said. */
const statesBetween = (readings: readonly Reading[], fromMs: number, toMs = Infinity) => [
  ...new Set(
    readings
      .filter((reading) => reading.startedAt >= fromMs && reading.endedAt < toMs)
      .map((reading) => reading.state),
  ),
];

for (const topology of ["single", "cluster"] as const satisfies readonly Topology[])
  describe(`${topology} lock nodes, the console on the same nodes`, () => {
    const nodes = useLockNodes(topology);
    let tc: TestConsole;
    beforeAll(async () => {
      tc = startTestConsole(consoleUrlsOf(nodes().specs), READS);
      await tc.ready();
    });
    afterAll(() => tc?.close());
    const resourceNamed = (name: string) => `${tc.prefix}${name}:${randomUUID()}`;

    for (const kind of HOLDER_KINDS)
      describe(`a ${kind} holder in a process of its own, heartbeat every ${HEARTBEAT_MS} ms`, () => {
        const label = `${kind} ${topology}`;

        it(`alive; SIGSTOP: unresponsive within ${BOUND_MS} ms, never gone while stopped; SIGCONT: alive again within ${BOUND_MS} ms`, async () => {
          const resource = resourceNamed("stopped");
          const { child } = await spawnHolder(kind, nodes().specs, resource);
          const held = await readUntil(resource, "alive", performance.now());
          expect(held.at(-1)?.state).toBe("alive");
          const stoppedAt = performance.now();
          child.kill("SIGSTOP");
          let stopped: Reading[];
          try {
            stopped = [
              ...(await readUntil(
                resource,
                "unresponsive",
                stoppedAt,
                `${label} SIGSTOP → unresponsive`,
              )),
              ...(await readFor(resource, 3_000)),
            ];
          } finally {
            child.kill("SIGCONT");
          }
          const resumedAt = performance.now();
          expect(stopped.map((reading) => reading.state)).not.toContain("gone");
          expect(statesBetween(stopped, stoppedAt + BOUND_MS)).toEqual(["unresponsive"]);
          const resumed = [
            ...(await readUntil(resource, "alive", resumedAt, `${label} SIGCONT → alive`)),
            ...(await readFor(resource, 500)),
          ];
          expect(statesBetween(resumed, resumedAt + BOUND_MS)).toEqual(["alive"]);
        });

        // Issue 39 supersedes "a force-release then deletes at once": gone is a guess, so the lock
        // is tombstoned until its validity ends; only the explicit delete-now frees it at once.
        it(`SIGKILL: gone within ${BOUND_MS} ms; a force-release then tombstones the lock (a contender is refused), and only the explicit delete-now lets a contender acquire without waiting`, async () => {
          await untilUpLongerThanTheWindow(nodes().servers.flat());
          const resource = resourceNamed("killed");
          const { child } = await spawnHolder(kind, nodes().specs, resource);
          await readUntil(resource, "alive", performance.now());
          const { body: held } = await call<LockResponse>(
            lockRoute.GET,
            `/api/locks/${encodeURIComponent(resource)}`,
          );
          const value = held.lock!.value!;
          const killedAt = performance.now();
          child.kill("SIGKILL");
          const readings = [
            ...(await readUntil(resource, "gone", killedAt, `${label} SIGKILL → gone`)),
            ...(await readFor(resource, 300)),
          ];
          expect(statesBetween(readings, killedAt + BOUND_MS)).toEqual(["gone"]);
          const response = await call<ForceReleaseResponse>(
            forceRelease.POST,
            "/api/locks/force-release",
            { body: { resource, expectedValue: value, reason: "worker crashed" } },
          );
          expect(response.status).toBe(200);
          expect(response.body).toMatchObject({
            mode: "tombstoned",
            holderState: "gone",
            deletedCount: 0,
            tombstonedCount: nodes().readers.length,
          });
          const contender = new Redlock(await nodes().clients(kind), { retryCount: 0 });
          try {
            await expect(contender.acquire([resource], 5_000)).rejects.toThrow();
            const tombstone = (await nodes().readers[0]!.get(resource))!;
            const deleted = await call<ForceReleaseResponse>(
              forceRelease.POST,
              "/api/locks/force-release",
              {
                body: {
                  resource,
                  expectedValue: tombstone,
                  disposal: "delete-now",
                  reason: "worker crashed, accept the overlap",
                },
              },
            );
            expect(deleted.body).toMatchObject({
              mode: "deleted",
              deletedCount: nodes().readers.length,
            });
            const lock = await contender.acquire([resource], 5_000);
            await lock.release();
          } finally {
            await contender.quit().catch(() => undefined);
          }
        });

        it(`a 3 s busy event loop: unresponsive within ${BOUND_MS} ms and while it lasts, never gone; alive within ${BOUND_MS} ms after`, async () => {
          const resource = resourceNamed("busy");
          const { child } = await spawnHolder(kind, nodes().specs, resource);
          await readUntil(resource, "alive", performance.now());
          let idleAt = 0;
          const idle = new Promise<void>((resolve) =>
            child.on("message", (message: HolderMessage) => {
              if (message.type !== "idle") return;
              idleAt = performance.now();
              resolve();
            }),
          );
          const busyAt = performance.now();
          child.send({ busyMs: 3_000 });
          const busy = [
            ...(await readUntil(resource, "unresponsive", busyAt, `${label} busy → unresponsive`)),
            ...(await readFor(resource, 3_000 - (performance.now() - busyAt))),
          ];
          await idle;
          expect(busy.map((reading) => reading.state)).not.toContain("gone");
          expect(statesBetween(busy, busyAt + BOUND_MS, busyAt + 3_000)).toEqual(["unresponsive"]);
          const after = [
            ...(await readUntil(resource, "alive", idleAt, `${label} idle → alive`)),
            ...(await readFor(resource, 500)),
          ];
          expect(statesBetween(after, idleAt + BOUND_MS)).toEqual(["alive"]);
        });
      });
  });

describe("servers that close idle clients (CONFIG SET timeout 1)", () => {
  const masters = usePrivateMasters(3);
  let tc: TestConsole;
  let servers: Redis[];
  beforeAll(async () => {
    servers = connect(masters.masters().urls);
    await Promise.all(servers.map((server) => server.config("SET", "timeout", "1")));
    tc = startTestConsole(masters.masters().urls, READS);
    await tc.ready();
  });
  afterAll(async () => {
    await tc?.close();
    await disconnect(servers);
  });

  it("a SIGSTOPped holder whose connections the servers closed is unresponsive, never gone", async () => {
    await untilUpLongerThanTheWindow(servers);
    const resource = `${tc.prefix}idle-timeout:${randomUUID()}`;
    const specs = masters.masters().urls.map((url) => ({ url }));
    const { child, sessionId } = await spawnHolder("ioredis", specs, resource);
    await readUntil(resource, "alive", performance.now());
    const clientIds = await Promise.all(
      servers.map(
        async (server) =>
          (JSON.parse((await server.get(sessionKey(sessionId)))!) as { clientId: number }).clientId,
      ),
    );
    const open = async () =>
      (
        await Promise.all(
          servers.map(async (server, index) =>
            String(await server.client("LIST", "ID", clientIds[index]!)).includes(
              `id=${clientIds[index]} `,
            ),
          ),
        )
      ).filter(Boolean).length;
    expect(await open()).toBe(3);
    const stoppedAt = performance.now();
    child.kill("SIGSTOP");
    const readings: Reading[] = [];
    // Idle for more than 1 s (whole seconds), then closed by the server's cron: within ~3 s.
    while ((await open()) > 0 && performance.now() - stoppedAt < 5_000)
      readings.push(...(await readFor(resource, 200)));
    expect(await open()).toBe(0);
    readings.push(...(await readFor(resource, 1_000)));
    expect(readings.map((reading) => reading.state)).not.toContain("gone");
    expect(statesBetween(readings, stoppedAt + BOUND_MS)).toEqual(["unresponsive"]);
  });
});
