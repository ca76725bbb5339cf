// test-group: alone
/**
 * Console replicas on one state store (issue 43), black-box: three console processes
 * (fixtures/console-process.ts: the route handlers over real HTTP) on three real lock masters and a
 * real state store, a round-robin balancer in front; locks churned by a real client; the writer
 * SIGKILLed, SIGSTOPped and woken, a replica restarted, a stream moved between replicas, the store
 * restarted empty. What every test checks: each replica serves the same transitions under the same
 * ids, every acquisition and release of the churn exactly once.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import Redlock from "@redlock-console/redlock";
import type { EventsResponse, Transition } from "@/lib/api";
import { WRITER_LEASE_KEY } from "@/lib/server/replicas/lease";
import { TRANSITIONS_STREAM } from "@/lib/server/timeline/state-store";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { RoundRobinProxy } from "../round-robin-proxy";
import { startReplica, type ReplicaProcess } from "./fixtures/replica-process";
import { openSse } from "./fixtures/sse-reader";

const TOKEN = "replicas-admin-token-0123456789abcdef";
/** Short, so the failovers fit the file's time; the default (4 s) is measured in docs/operations.md. */
const LEASE_MS = 2_000;
const PREFIX = "rep:";

const servers = usePrivateMasters(4); // three lock nodes, then the state store
let lockClients: Redis[];
let store: Redis;
let redlock: Redlock;
const replicas = new Map<string, ReplicaProcess>();
let proxy: RoundRobinProxy;

const env = () => {
  const urls = servers.masters().urls;
  return {
    REDLOCK_NODES: urls.slice(0, 3).join(","),
    CONSOLE_STATE_URL: urls[3]!,
    CONSOLE_ADMIN_TOKEN: TOKEN,
    CONSOLE_WRITER_LEASE_MS: String(LEASE_MS),
    LOCK_MATCH: `${PREFIX}*`,
    CONSOLE_PROBE_INTERVAL_MS: "0",
  };
};

const start = async (id: string) => {
  const replica = await startReplica(id, env());
  replicas.set(id, replica);
  proxy?.setUpstreams([...replicas.values()].map((r) => r.port));
  return replica;
};

interface Held {
  readonly resource: string;
  readonly value: string;
}

/** `count` locks taken and released one after another (each held long enough to be read). */
async function churn(name: string, count: number, during?: (index: number) => Promise<void>) {
  const held: Held[] = [];
  for (let index = 0; index < count; index += 1) {
    const resource = `${PREFIX}${name}:${index}`;
    const lock = await redlock.acquire([resource], 10_000);
    await sleep(120);
    await lock.release();
    held.push({ resource, value: lock.value });
    await during?.(index);
  }
  return held;
}

/** Every acquisition and release of `held`, each exactly once; ids unique and newest first. */
function expectWhole(transitions: Transition[], held: readonly Held[]) {
  const ids = transitions.map((t) => t.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  for (const { resource, value } of held)
    for (const kind of ["acquired", "released"])
      expect(
        transitions.filter((t) => t.kind === kind && t.resource === resource && t.value === value),
        `${kind} ${resource}`,
      ).toHaveLength(1);
}

const idsOf = (transitions: Transition[]) => transitions.map((t) => `${t.id}:${t.kind}`);

async function writerOf(candidates: ReplicaProcess[]): Promise<ReplicaProcess> {
  return vi.waitFor(
    async () => {
      const writers: ReplicaProcess[] = [];
      for (const replica of candidates)
        if ((await replica.health()).replica?.historyWriter) writers.push(replica);
      expect(writers).toHaveLength(1);
      return writers[0]!;
    },
    { timeout: 15_000, interval: 100 },
  );
}

/** Every live replica serves `held` whole, under the same ids. */
async function expectSameHistory(live: ReplicaProcess[], held: readonly Held[]) {
  await vi.waitFor(
    async () => {
      const served = await Promise.all(live.map((replica) => replica.events()));
      for (const transitions of served) expectWhole(transitions, held);
      for (const transitions of served.slice(1))
        expect(idsOf(transitions)).toEqual(idsOf(served[0]!));
    },
    { timeout: 15_000, interval: 200 },
  );
}

/** Each replica's history is folding: listed whole, no gap open (a lock taken before is no transition). */
async function historyWhole(live: ReplicaProcess[]) {
  await vi.waitFor(
    async () => {
      for (const replica of live) {
        const response = await fetch(`${replica.base}/api/events?limit=1`);
        const { horizon } = (await response.json()) as EventsResponse;
        expect(horizon.gapOpen).toBe(false);
      }
    },
    { timeout: 30_000, interval: 200 },
  );
}

beforeAll(async () => {
  const urls = servers.masters().urls;
  lockClients = connect(urls.slice(0, 3));
  [store] = connect([urls[3]!]) as [Redis];
  store.on("error", () => {}); // the store is restarted on purpose
  redlock = new Redlock(lockClients, { retryCount: 3, session: false });
  await Promise.all(["a", "b", "c"].map((id) => start(id)));
  proxy = await RoundRobinProxy.start([...replicas.values()].map((r) => r.port));
  await historyWhole([...replicas.values()]);
}, 90_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all([...replicas.values()].map((replica) => replica.stop()));
  await disconnect([...lockClients, store]);
}, 30_000);

describe("three replicas on one state store", () => {
  it("serve one history: the same transitions under the same ids, one writer, through the balancer", async () => {
    const writer = await writerOf([...replicas.values()]);
    expect(writer.id).toMatch(/^[abc]$/);
    const held = await churn("one", 8);
    await expectSameHistory([...replicas.values()], held);
    const throughBalancer = await fetch(`${proxy.url}/api/events?limit=2000`);
    expect(throughBalancer.status).toBe(200);
  });

  it("a force-release through a replica that does not write is attributed in the shared history", async () => {
    const writer = await writerOf([...replicas.values()]);
    const follower = [...replicas.values()].find((r) => r !== writer)!;
    const resource = `${PREFIX}forced`;
    const lock = await redlock.acquire([resource], 30_000);
    await vi.waitFor(async () =>
      expect((await writer.events()).some((t) => t.value === lock.value)).toBe(true),
    );
    const forced = await fetch(`${follower.base}/api/locks/force-release`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        resource,
        expectedValue: lock.value,
        noSession: "release-now",
        reason: "replicas test",
      }),
    });
    expect(forced.status).toBe(200);
    await vi.waitFor(
      async () => {
        const ended = (await writer.events()).find(
          (t) => t.value === lock.value && t.kind !== "acquired",
        );
        expect(ended).toMatchObject({ kind: "force-released", reason: "replicas test" });
      },
      { timeout: 15_000, interval: 200 },
    );
  });

  it("a stream moved to another replica with Last-Event-ID gets exactly what it missed", async () => {
    const [first, second] = [...replicas.values()];
    const before = await openSse(`${first!.base}/api/events/stream`, TOKEN);
    const phase1 = await churn("moved1", 4);
    await before.until((seen) => seen.filter((t) => t.resource.includes("moved1")).length === 8);
    const lastId = before.transitions.at(-1)!.id;
    before.close();
    const phase2 = await churn("moved2", 4);
    await expectSameHistory([first!, second!], [...phase1, ...phase2]);
    const after = await openSse(`${second!.base}/api/events/stream`, TOKEN, lastId);
    await after.until((seen) => seen.filter((t) => t.resource.includes("moved2")).length === 8);
    await sleep(500); // anything repeated would arrive by now
    const missed = (await second!.events()).filter((t) => t.id > lastId).reverse();
    expect(after.transitions.map((t) => t.id)).toEqual(missed.map((t) => t.id));
    after.close();
  });

  it("the writer SIGKILLed during churn: another takes over within the lease, nothing lost, nothing twice; a restarted replica serves the same", async () => {
    const writer = await writerOf([...replicas.values()]);
    const others = [...replicas.values()].filter((r) => r !== writer);
    let killedAtMs = 0;
    const held = await churn("killed", 16, async (index) => {
      if (index !== 5) return;
      await writer.kill();
      killedAtMs = Date.now();
    });
    const next = await writerOf(others);
    const failoverMs = Date.now() - killedAtMs;
    console.log(`failover after SIGKILL: ${failoverMs} ms (lease ${LEASE_MS} ms)`);
    expect(failoverMs).toBeLessThan(LEASE_MS * 5);
    await expectSameHistory(others, held);
    replicas.delete(writer.id);
    const restarted = await start(writer.id);
    await historyWhole([restarted]);
    await expectSameHistory([next, restarted], held);
  });

  it("the writer SIGSTOPped: another takes over; woken, the old writer writes nothing and serves the shared history", async () => {
    const writer = await writerOf([...replicas.values()]);
    const others = [...replicas.values()].filter((r) => r !== writer);
    const oldTag = (await store.get(WRITER_LEASE_KEY))!.split(":").slice(0, 2).join(":");
    writer.pause();
    const held = await churn("paused", 6);
    const next = await writerOf(others);
    const wokenFrom = (await store.xrevrange(TRANSITIONS_STREAM, "+", "-", "COUNT", 1))[0]![0];
    writer.resume();
    const more = await churn("woken", 4);
    await expectSameHistory([writer, ...others], [...held, ...more]);
    expect((await writer.health()).replica?.historyWriter).toBe(false);
    const since = await store.xrange(TRANSITIONS_STREAM, `(${wokenFrom}`, "+");
    expect(since.length).toBeGreaterThan(0);
    expect(since.filter(([, fields]) => fields.includes(oldTag))).toEqual([]);
    expect((await next.health()).replica?.historyWriter).toBe(true);
  });

  it("the state store restarted empty: history goes on, ids above every earlier one, nothing twice", async () => {
    const live = [...replicas.values()];
    const newestBefore = Math.max(...(await live[0]!.events()).map((t) => t.id));
    await servers.masters().restartEmpty(3);
    const held = await churn("restarted", 6);
    await writerOf(live);
    await expectSameHistory(live, held);
    const after = (await live[0]!.events()).filter((t) => t.resource.includes("restarted"));
    for (const transition of after) expect(transition.id).toBeGreaterThan(newestBefore);
  });
});
