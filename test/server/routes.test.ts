import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as audit from "@/app/api/audit/route";
import * as health from "@/app/api/health/route";
import * as latency from "@/app/api/latency/route";
import * as extend from "@/app/api/locks/extend/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as release from "@/app/api/locks/release/route";
import * as locks from "@/app/api/locks/route";
import * as metrics from "@/app/api/metrics/route";
import * as nodesRoute from "@/app/api/nodes/route";
import type {
  AuditResponse,
  ErrorBody,
  ForceReleaseResponse,
  HealthResponse,
  LatencyResponse,
  LockGrantResponse,
  NodesResponse,
  ReleaseResponse,
} from "@/lib/api";
import { decodeValue } from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
const key = (name: string) => `${tc.prefix}${name}`;
const valuesOf = (name: string) => Promise.all(nodes.map((node) => node.get(name)));

beforeAll(() => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
});

afterAll(async () => {
  await Promise.all(
    nodes.map(async (node) => {
      const keys = await node.keys(`${tc.prefix}*`);
      if (keys.length) await node.del(...keys);
    }),
  );
  await tc.close();
  await disconnect(nodes);
});

describe("health and nodes", () => {
  it("GET /api/health says ok with every node up", async () => {
    const response = await call<HealthResponse>(health.GET, "/api/health", { token: null });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "ok", quorumSize: 3, reachableNodes: 5 });
  });

  it("GET /api/nodes reports each node without a password, with its warnings", async () => {
    const response = await call<NodesResponse>(nodesRoute.GET, "/api/nodes", { token: null });
    expect(response.status).toBe(200);
    expect(response.body.nodes).toHaveLength(5);
    for (const node of response.body.nodes) {
      expect(node).toMatchObject({ status: "up", role: "master" });
      expect(node.runId).toMatch(/^[0-9a-f]{40}$/);
      expect(node.latencyMs).toBeGreaterThanOrEqual(0);
      expect(node.uptimeS).toBeGreaterThanOrEqual(0);
      expect(Math.abs(node.clockSkewMs!)).toBeLessThan(500);
      // The shared test masters run without AOF/RDB and the console without quarantine.
      expect(node.warnings.map((warning) => warning.code)).toContain("no_persistence");
    }
  });
});

describe("acquire, extend, release", () => {
  it("acquires (201) with per-node votes and a fencing token, and refuses a second holder (409)", async () => {
    const first = await call<LockGrantResponse>(locks.POST, "/api/locks", {
      body: { resources: [key("job")], ttlMs: 10_000, fencing: true },
    });
    expect(first.status).toBe(201);
    const lock = first.body.lock;
    expect(decodeValue(lock.value)?.owner).toMatchObject({
      ttlMs: 10_000,
      labels: { service: "redlock-console" },
    });
    expect(lock.fencingToken).toBeGreaterThan(0);
    expect(lock.validityMs).toBeGreaterThan(9_000);
    expect(lock.attempts[0]!.votes).toHaveLength(5);
    expect(
      lock.attempts[0]!.votes.every((vote) => vote.vote === "for" && vote.latencyMs >= 0),
    ).toBe(true);
    expect(await valuesOf(key("job"))).toEqual(Array(5).fill(lock.value));

    const second = await call<ErrorBody>(locks.POST, "/api/locks", {
      body: { resources: [key("job")], ttlMs: 10_000 },
    });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe("resource_locked");
    expect(await valuesOf(key("job"))).toEqual(Array(5).fill(lock.value));
  });

  it("extends a held lock by value (200), refuses a foreign value and a released lock (409)", async () => {
    const acquired = await call<LockGrantResponse>(locks.POST, "/api/locks", {
      body: { resources: [key("ext")], ttlMs: 2_000 },
    });
    const value = acquired.body.lock.value;
    const extended = await call<LockGrantResponse>(extend.POST, "/api/locks/extend", {
      body: { resources: [key("ext")], value, ttlMs: 60_000 },
    });
    expect(extended.status).toBe(200);
    expect(extended.body.lock.validityMs).toBeGreaterThan(50_000);
    expect(await nodes[0]!.pttl(key("ext"))).toBeGreaterThan(50_000);
    // Issue 39: a value the console did not acquire is refused before any node is asked.
    const wrong = await call<ErrorBody>(extend.POST, "/api/locks/extend", {
      body: { resources: [key("ext")], value: "0".repeat(40), ttlMs: 60_000 },
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error.code).toBe("not_console_lock");
    await call(release.POST, "/api/locks/release", { body: { resources: [key("ext")], value } });
    const gone = await call<ErrorBody>(extend.POST, "/api/locks/extend", {
      body: { resources: [key("ext")], value, ttlMs: 60_000 },
    });
    expect(gone.status).toBe(409);
    expect(gone.body.error.code).toBe("lock_not_held");
  });

  it("releases by value on every node, and answers 200 with releasedCount 0 when already gone", async () => {
    const acquired = await call<LockGrantResponse>(locks.POST, "/api/locks", {
      body: { resources: [key("rel-a"), key("rel-b")], ttlMs: 10_000 },
    });
    const body = { resources: [key("rel-a"), key("rel-b")], value: acquired.body.lock.value };
    const released = await call<ReleaseResponse>(release.POST, "/api/locks/release", { body });
    expect(released.status).toBe(200);
    expect(released.body.releasedCount).toBe(5);
    expect(await valuesOf(key("rel-a"))).toEqual(Array(5).fill(null));
    const again = await call<ReleaseResponse>(release.POST, "/api/locks/release", { body });
    expect(again.status).toBe(200);
    expect(again.body.releasedCount).toBe(0);
  });
});

describe("force-release", () => {
  it("compare-and-deletes the value the operator saw, on every node", async () => {
    await Promise.all(nodes.map((node) => node.set(key("stuck"), "1".repeat(40), "PX", 60_000)));
    const response = await call<ForceReleaseResponse>(
      forceRelease.POST,
      "/api/locks/force-release",
      {
        body: {
          resource: key("stuck"),
          expectedValue: "1".repeat(40),
          noSession: "release-now",
          reason: "worker died, ticket OPS-1",
        },
      },
    );
    expect(response.status).toBe(200);
    expect(response.body.deletedCount).toBe(5);
    expect(response.body.auditId).toMatch(/[0-9a-f-]{36}/);
    expect(await valuesOf(key("stuck"))).toEqual(Array(5).fill(null));
  });

  it("answers 409 and deletes nothing when the value changed since the operator looked (race)", async () => {
    await Promise.all(nodes.map((node) => node.set(key("race"), "2".repeat(40), "PX", 60_000)));
    // The operator saw value 2…; meanwhile the lock expired and a new holder took it on node 1 and 2.
    await Promise.all(
      [0, 1].map((index) => nodes[index]!.set(key("race"), "3".repeat(40), "PX", 60_000)),
    );
    const response = await call<ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource: key("race"), expectedValue: "2".repeat(40), reason: "stale view" },
    });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("value_changed");
    const details = response.body.error.details as ForceReleaseResponse;
    expect(details.nodes.map((node) => node.outcome)).toEqual([
      "mismatch",
      "mismatch",
      "kept",
      "kept",
      "kept",
    ]);
    expect(await valuesOf(key("race"))).toEqual(["3", "3", "2", "2", "2"].map((c) => c.repeat(40)));
  });

  // Issue 39: force: true tombstones whatever each node holds (it used to delete it at once);
  // deleting it is the explicit delete-now.
  it("tombstones any value with force: true, and deletes it only with delete-now", async () => {
    await Promise.all(
      nodes.map((node, index) => node.set(key("mixed"), String(index).repeat(40), "PX", 60_000)),
    );
    const forceOf = (disposal?: "delete-now") =>
      call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", {
        body: { resource: key("mixed"), force: true, reason: "split brain cleanup", disposal },
      });
    const response = await forceOf();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ mode: "tombstoned", tombstonedCount: 5 });
    expect((await valuesOf(key("mixed"))).map((value) => value!.slice(0, 45))).toEqual(
      nodes.map((_, index) => `rlx:${String(index).repeat(40)}:`),
    );
    const deleted = await forceOf("delete-now");
    expect(deleted.body).toMatchObject({ mode: "deleted", deletedCount: 5 });
    expect(await valuesOf(key("mixed"))).toEqual(Array(5).fill(null));
  });

  it("force-releases a Redisson hash lock by its holder field with delete-now", async () => {
    // With a TTL: without one, only UUID holder fields make a hash a lock (lock-format.ts).
    for (const node of nodes) {
      await node.hset(key("redisson"), "uuid-1:9", "1");
      await node.pexpire(key("redisson"), 30_000);
    }
    const response = await call<ForceReleaseResponse>(
      forceRelease.POST,
      "/api/locks/force-release",
      {
        body: {
          resource: key("redisson"),
          expectedValue: "uuid-1:9",
          disposal: "delete-now",
          reason: "jvm gone",
        },
      },
    );
    expect(response.body.deletedCount).toBe(5);
    expect(await nodes[0]!.exists(key("redisson"))).toBe(0);
  });
});

describe("latency, audit and metrics", () => {
  it("GET /api/latency returns per-node and quorum history including manual actions and probes", async () => {
    await tc.ctx.probe.runOnce();
    const response = await call<LatencyResponse>(latency.GET, "/api/latency?window=15m");
    expect(response.status).toBe(200);
    expect(response.body.windowMs).toBe(900_000);
    expect(response.body.nodes).toHaveLength(5);
    expect(response.body.nodes[0]!.samples.length).toBeGreaterThan(0);
    const sources = new Set(response.body.quorum.map((sample) => sample.source));
    expect(sources.has("probe")).toBe(true);
    expect(sources.has("acquire")).toBe(true);
  });

  it("GET /api/audit lists this file's actions, newest first, each stored on all five nodes", async () => {
    const response = await call<AuditResponse>(audit.GET, "/api/audit?limit=500");
    expect(response.status).toBe(200);
    const mine = response.body.entries.filter((entry) =>
      entry.resources.some((resource) => resource.startsWith(tc.prefix)),
    );
    const forced = mine.filter((entry) => entry.action === "force-release");
    expect(forced.map((entry) => entry.outcome)).toEqual(Array(4).fill("success"));
    // The race's 409 wrote nothing: it is a refusal, counted in the refusal log, not an action.
    expect(forced.find((entry) => entry.reason === "stale view")).toBeUndefined();
    await tc.ctx.refusals.flush();
    const refused = await call<AuditResponse>(audit.GET, "/api/audit?kind=refusals&limit=500");
    expect(
      refused.body.refusals?.filter((refusal) => refusal.resources.includes(key("race"))),
    ).toMatchObject([
      { action: "POST /api/locks/force-release", code: "value_changed", status: 409, count: 1 },
    ]);
    expect(
      mine.every((entry) => entry.nodes.length === 5 && entry.actor === "break-glass (token)"),
    ).toBe(true);
    const times = mine.map((entry) => entry.at);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("GET /api/metrics speaks Prometheus text with locks, nodes, latency and action counters", async () => {
    const response = await call(metrics.GET, "/api/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    for (const name of [
      'redlock_console_locks{state="held"}',
      "redlock_console_nodes_up 5",
      "redlock_console_node_latency_seconds_bucket",
      'redlock_console_actions_total{action="acquire",outcome="success"}',
      'redlock_console_force_releases_total{outcome="value_changed"} 1',
    ]) {
      expect(response.text).toContain(name);
    }
  });
});
