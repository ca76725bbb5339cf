/**
 * The timeline on real masters: transitions folded from the live index's notifications. A holder
 * SIGKILLed while holding shows as "expired" with its owner; one SIGSTOPped past its TTL while
 * another takes the lock shows both holders and the possible overlap; a force-release names who
 * did it; a force-release's tombstone ends the hold and is shown as being released, then released
 * by the holder or ended; an eviction (maxmemory + allkeys-lru) shows as evicted; a subscriber
 * dropped mid-way is a gap, never quiet; the feed is pushed as server-sent events; the history
 * bound holds under 100k.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as events from "@/app/api/events/route";
import * as stream from "@/app/api/events/stream/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as locks from "@/app/api/locks/route";
import {
  makeTransition,
  type EventsResponse,
  type ForceReleaseResponse,
  type LocksResponse,
  type Transition,
} from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { createMetrics } from "@/lib/server/metrics";
import { History } from "@/lib/server/timeline/history";
import { AS_OF_STREAM, TRANSITIONS_STREAM } from "@/lib/server/timeline/state-store";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { FakeHolderSession } from "./fixtures/holder-session";
import { buildRequest, call, startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(5);
/** A Redis of the operator's choice for console state: never one of the lock nodes. */
const stateStore = usePrivateMasters(1);
let tc: TestConsole;
let nodes: Redis[];
let redlock: Redlock;
const name = (suffix: string) => `${tc.prefix}${suffix}`;

async function transitionsOf(resource: string): Promise<Transition[]> {
  const response = await call<EventsResponse>(
    events.GET,
    `/api/events?resource=${encodeURIComponent(resource)}&limit=100`,
  );
  expect(response.status).toBe(200);
  return response.body.transitions.filter((transition) => transition.kind !== "gap").reverse();
}

/** Waits until the lock's transitions (oldest first) have the kinds `kinds` as a prefix. */
async function waitForKinds(resource: string, kinds: string[], timeoutMs = 10_000) {
  return waitForTransitions(
    resource,
    (seen) =>
      expect(seen.map((transition) => transition.kind).slice(0, kinds.length)).toEqual(kinds),
    timeoutMs,
  );
}

async function waitForTransitions(
  resource: string,
  check: (seen: Transition[]) => void,
  timeoutMs = 10_000,
) {
  let seen: Transition[] = [];
  await vi.waitFor(
    async () => {
      seen = await transitionsOf(resource);
      check(seen);
    },
    { timeout: timeoutMs, interval: 50 },
  );
  return seen;
}

function startHolder(resource: string, ttlMs: number, service: string) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(import.meta.dirname, "fixtures/lock-holder.ts"),
      resource,
      String(ttlMs),
      service,
      ...masters.masters().urls,
    ],
    { stdio: ["ignore", "pipe", "inherit"], cwd: path.resolve(import.meta.dirname, "../..") },
  );
  const held = new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /held (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`holder exited (${code}) before holding`)));
  });
  return { child, held };
}

async function kill(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
}

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  tc = startTestConsole(masters.masters().urls, { resyncIntervalMs: 3_600_000 });
  redlock = new Redlock(nodes, { retryCount: 0, owner: { service: "tests" } });
  // History starts once the index is whole (the first tick after the listing).
  await tc.historyWhole();
});

afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

describe("a lock's transitions", () => {
  it("acquired, extended and released, each with its owner, hold time and waiters", async () => {
    const resource = name("lifecycle");
    const lock = await redlock.acquire([resource], 10_000);
    await sleep(300);
    const extended = await lock.extend(20_000);
    await sleep(100);
    await extended.release();
    const seen = await waitForKinds(resource, ["acquired", "extended", "released"]);
    expect(seen.every((transition) => transition.owner?.labels.service === "tests")).toBe(true);
    expect(seen.every((transition) => transition.value === lock.value)).toBe(true);
    expect(seen[2]!.heldMs).toBeGreaterThanOrEqual(400);
    expect(seen[2]!.heldMs).toBeLessThan(5_000);
  });

  it("a holder SIGKILLed while holding: expired while held, with its owner", async () => {
    const resource = name("killed");
    const holder = startHolder(resource, 1_500, "killed-worker");
    try {
      const value = await holder.held;
      await waitForKinds(resource, ["acquired"]);
      await kill(holder.child);
      const seen = await waitForKinds(resource, ["acquired", "expired"], 8_000);
      const expired = seen.find((transition) => transition.kind === "expired")!;
      expect(expired.value).toBe(value);
      expect(expired.owner?.labels.service).toBe("killed-worker");
      expect(expired.heldMs).toBeGreaterThanOrEqual(1_000);
      // Its value names no holder session (the fixture's session: false): nothing to read, and the
      // transition says so. Expiries of holders with a session: timeline-sessions.test.ts.
      expect(expired.cause).toMatchObject({ session: "unknown", sessionId: null, checkedAt: null });
      expect(expired.summary).toMatch(/^expired while held: the holder has no session/);
    } finally {
      await kill(holder.child);
    }
  });

  it("a holder SIGSTOPped past its TTL while another takes the lock: both holders and the overlap", async () => {
    const resource = name("paused");
    const holder = startHolder(resource, 1_500, "paused-worker");
    try {
      const first = await holder.held;
      // It extends every 500 ms: let it do so at least once, then pause it.
      await waitForKinds(resource, ["acquired", "extended"], 5_000);
      holder.child.kill("SIGSTOP");
      const second = await redlock.acquire([resource], 10_000, { retryCount: 40, retryDelay: 100 });
      const seen = await waitForTransitions(resource, (transitions) =>
        expect(transitions.at(-1)?.value).toBe(second.value),
      );
      const kinds = seen.map((transition) => transition.kind);
      const expiredAt = kinds.indexOf("expired");
      expect(expiredAt).toBeGreaterThan(0);
      expect(seen[expiredAt]!.owner?.labels.service).toBe("paused-worker");
      const taken = seen[expiredAt + 1]!;
      expect(taken).toMatchObject({ kind: "acquired", value: second.value });
      expect(taken.owner?.labels.service).toBe("tests");
      // The new holder is marked: the previous one ran out instead of releasing, so may still act.
      expect(taken.afterExpired).toMatchObject({ value: first });
      expect(taken.afterExpired?.owner?.labels.service).toBe("paused-worker");
      holder.child.kill("SIGCONT");
      await second.release();
    } finally {
      await kill(holder.child);
    }
  });

  it("a force-release names who did it and why", async () => {
    const resource = name("forced");
    const lock = await redlock.acquire([resource], 30_000);
    await waitForKinds(resource, ["acquired"]);
    const forced = await call(forceRelease.POST, "/api/locks/force-release", {
      body: {
        resource,
        expectedValue: lock.value,
        noSession: "release-now",
        reason: "stuck job, paged",
      },
    });
    expect(forced.status).toBe(200);
    const seen = await waitForKinds(resource, ["acquired", "force-released"]);
    expect(seen[1]).toMatchObject({
      by: "break-glass (token)",
      reason: "stuck job, paged",
      value: lock.value,
      auditId: (forced.body as ForceReleaseResponse).auditId,
    });
  });

  describe("a force-release's tombstone (the holder's session alive)", () => {
    /** A lock held by a live hand-written session, force-released: its tombstone is on every node. */
    async function tombstoned(suffix: string, ttlMs: number) {
      const session = await FakeHolderSession.open(masters.masters().urls.map((url) => ({ url })));
      await session.heartbeat();
      const resource = name(suffix);
      const value = session.value(ttlMs);
      await Promise.all(nodes.map((node) => node.set(resource, value, "PX", ttlMs)));
      await waitForKinds(resource, ["acquired"]);
      const forced = await call<ForceReleaseResponse>(
        forceRelease.POST,
        "/api/locks/force-release",
        { body: { resource, expectedValue: value, reason: "stuck job, paged" } },
      );
      expect(forced.body).toMatchObject({ mode: "tombstoned", holderState: "alive" });
      const { auditId } = forced.body;
      const seen = await waitForKinds(resource, ["acquired", "force-released", "releasing"]);
      const actor = { by: "break-glass (token)", reason: "stuck job, paged", auditId };
      expect(seen[1]).toMatchObject({ value, ...actor });
      expect(seen[1]!.summary).toBe(
        `force-released by break-glass (token): "stuck job, paged" (audit ${auditId})`,
      );
      expect(seen[2]).toMatchObject(actor);
      expect(seen[2]!.value).toMatch(/^rlx:[0-9a-f]{40}:/);
      expect(seen[2]!.owner?.labels.service).toBe("billing-worker");
      expect(seen[2]!.summary).toMatch(/^being released: the tombstone keeps everyone out until/);
      return { session, resource };
    }

    it("ends the hold as force-released, then the holder acknowledges: released by the holder", async () => {
      const { session, resource } = await tombstoned("tombstone-acked", 30_000);
      try {
        await sleep(200);
        // The holder's library acknowledges: it deletes its tombstone on every node.
        await Promise.all(nodes.map((node) => node.del(resource)));
        const seen = await waitForKinds(resource, [
          "acquired",
          "force-released",
          "releasing",
          "release-acknowledged",
        ]);
        expect(seen[3]!.heldMs).toBeGreaterThanOrEqual(200);
        expect(seen[3]!.summary).toMatch(
          /^released by the holder \(acknowledged after [\d.]+ m?s\)$/,
        );
        // The tombstone was never a holder: one change of hands.
        expect(tc.ctx.timeline.activity(resource, Date.now()).handsLastHour).toBe(1);
      } finally {
        session.close();
      }
    });

    it("a tombstone nobody acknowledges: the reservation ends with the replaced value's validity", async () => {
      const { session, resource } = await tombstoned("tombstone-unacked", 1_500);
      try {
        const seen = await waitForKinds(
          resource,
          ["acquired", "force-released", "releasing", "reservation-ended"],
          5_000,
        );
        expect(seen[3]!.summary).toMatch(/^reservation ended after [\d.]+ m?s: the holder never/);
      } finally {
        session.close();
      }
    });
  });

  it("a conflict that lasts is an episode; an acquire in flight is not", async () => {
    const resource = name("conflict");
    await Promise.all([0, 1].map((i) => nodes[i]!.set(resource, "a".repeat(40), "PX", 5_000)));
    await Promise.all([2, 3].map((i) => nodes[i]!.set(resource, "b".repeat(40), "PX", 5_000)));
    const seen = await waitForKinds(resource, ["conflict"], 5_000);
    expect(seen[0]!.nodeIds).toEqual(["node-1", "node-2", "node-3", "node-4"]);
    await Promise.all(nodes.map((node) => node.del(resource)));
    // Every acquire above passed through "partial" for a moment: none of them became an episode.
    const partials = (await call<EventsResponse>(events.GET, "/api/events?kind=partial")).body;
    expect(partials.transitions).toEqual([]);
  });

  it("the overview row counts changes of hands and expiries in the last hour", async () => {
    const resource = name("killed");
    const page = await call<LocksResponse>(
      locks.GET,
      `/api/locks?match=${encodeURIComponent(resource)}`,
    );
    // Nothing holds it now; a new holder gets the row back with its history.
    expect(page.body.items).toEqual([]);
    const lock = await redlock.acquire([resource], 5_000);
    await tc.sync();
    await vi.waitFor(async () => {
      const row = (
        await call<LocksResponse>(locks.GET, `/api/locks?match=${encodeURIComponent(resource)}`)
      ).body.items[0];
      expect(row?.activity).toEqual({ handsLastHour: 2, expiredLastHour: 1 });
    });
    await lock.release();
  });
});

describe("locks held for milliseconds", () => {
  it("a lock taken and released 40 times, each within milliseconds: every change of hands is counted", async () => {
    const resource = name("brief");
    for (let round = 0; round < 40; round += 1) {
      const lock = await redlock.acquire([resource], 5_000);
      await lock.release();
      await sleep(40);
    }
    await tc.sync();
    await vi.waitFor(async () => {
      const row = tc.ctx.timeline.activity(resource, Date.now());
      expect(row.handsLastHour).toBe(40);
    });
  });
});

describe("what the console did not see is a gap", () => {
  it("a dropped subscriber: the relist is recorded as a gap, and history goes on after it", async () => {
    const before = tc.ctx.timeline.transitions(1)[0]?.id ?? 0;
    await nodes[2]!.client("KILL", "TYPE", "pubsub");
    await vi.waitFor(
      () => {
        const gap = tc.ctx.timeline.transitions(50, (t) => t.kind === "gap", before)[0];
        expect(gap?.since).toBeLessThanOrEqual(gap!.at);
      },
      { timeout: 15_000 },
    );
    expect(tc.ctx.timeline.horizon().gapOpen).toBe(false);
    const resource = name("after-gap");
    const lock = await redlock.acquire([resource], 5_000);
    // Held long enough to be read: a hold that begins and ends between two reads is not seen.
    await sleep(100);
    await lock.release();
    await waitForKinds(resource, ["acquired", "released"]);
  });
});

describe("the feed, pushed", () => {
  it("streams transitions as server-sent events, filtered by kind and owner", async () => {
    const controller = new AbortController();
    const response = await stream.GET(
      new Request(buildRequest("/api/events/stream?kind=acquired&owner=service%3Dstreamed").url, {
        headers: buildRequest("/").headers,
        signal: controller.signal,
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const streamed = new Redlock(nodes, { retryCount: 0, owner: { service: "streamed" } });
    const resource = name("streamed");
    const writtenAt = Date.now();
    const lock = await streamed.acquire([resource], 5_000);
    await redlock.acquire([name("not-streamed")], 5_000).then((other) => other.release());
    let text = "";
    while (!text.includes(`"resource":"${resource}"`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    const pushedMs = Date.now() - writtenAt;
    const frames = text.split("\n\n").filter((frame) => frame.includes("event: transition"));
    expect(frames).toHaveLength(1);
    const transition = JSON.parse(frames[0]!.split("data: ")[1]!) as Transition;
    expect(transition).toMatchObject({ kind: "acquired", resource, value: lock.value });
    // Pushed, not found by a later poll: without the push nothing arrives (issue 48: a guard ten
    // times the old 2 s bound, not a latency).
    expect(pushedMs).toBeLessThan(20_000);
    controller.abort();
    await reader.cancel().catch(() => {});
    await lock.release();
  });

  it("refuses unknown kinds and bad owner filters with a 400", async () => {
    for (const query of ["kind=acquired,stolen", "owner=nolabel", "limit=0", "after=-1"]) {
      const response = await call<{ error: { code: string } }>(events.GET, `/api/events?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
    }
  });
});

describe("eviction", () => {
  it("a lock key evicted by a node's maxmemory policy shows as evicted, with the node", async () => {
    const resource = name("evicted");
    const lock = await redlock.acquire([resource], 60_000);
    await waitForKinds(resource, ["acquired"]);
    const node = nodes[4]!;
    const used = Number(/used_memory:(\d+)/.exec(await node.info("memory"))![1]);
    await node.config("SET", "maxmemory-policy", "allkeys-lru");
    await node.config("SET", "maxmemory", String(used + 512 * 1024));
    try {
      const filler = "x".repeat(4096);
      for (let batch = 0; batch < 200 && (await node.exists(resource)) === 1; batch += 1) {
        const pipeline = node.pipeline();
        for (let index = 0; index < 50; index += 1)
          pipeline.set(`filler:${batch}:${index}`, filler);
        await pipeline.exec();
      }
      expect(await node.exists(resource)).toBe(0);
    } finally {
      await node.config("SET", "maxmemory", "0");
      await node.config("SET", "maxmemory-policy", "noeviction");
      await node.flushdb();
    }
    const seen = await waitForKinds(resource, ["acquired", "evicted"]);
    expect(seen[1]).toMatchObject({ value: lock.value, nodeIds: ["node-5"] });
    expect(seen[1]!.owner?.labels.service).toBe("tests");
    await lock.release();
  });
});

describe("the history bound", () => {
  it("keeps the newest `capacity` of 100,000 transitions, oldest dropped first", () => {
    const history = new History(1_000);
    for (let id = 1; id <= 100_000; id += 1)
      history.push(makeTransition({ id, at: id, kind: "acquired", resource: `r${id % 100}` }));
    expect(history.size).toBe(1_000);
    expect(history.oldest?.id).toBe(99_001);
    const newest = history.newest(2_000, () => true);
    expect(newest).toHaveLength(1_000);
    expect(newest[0]!.id).toBe(100_000);
    expect(history.newest(10, () => true, 99_995).map((t) => t.id)).toEqual([
      100_000, 99_999, 99_998, 99_997, 99_996,
    ]);
  });
});

describe("the state store (CONSOLE_STATE_URL)", () => {
  it("keeps history across a console restart, marks the time it was away as a gap, and writes nothing to the lock nodes", async () => {
    const [stateUrl] = stateStore.masters().urls;
    const first = startTestConsole(masters.masters().urls, {
      stateUrl,
      resyncIntervalMs: 3_600_000,
    });
    await first.historyWhole();
    const resource = `${first.prefix}stored`;
    const lock = await redlock.acquire([resource], 5_000);
    await sleep(100);
    await lock.release();
    await vi.waitFor(() =>
      expect(first.ctx.timeline.transitions(10, (t) => t.resource === resource)).toHaveLength(2),
    );
    await first.close();
    const [state] = connect([stateUrl!]);
    expect(await state!.xlen(TRANSITIONS_STREAM)).toBeGreaterThanOrEqual(2);
    expect(await state!.xlen(AS_OF_STREAM)).toBe(1);
    await disconnect([state!]);
    for (const node of nodes) expect(await node.exists(TRANSITIONS_STREAM, AS_OF_STREAM)).toBe(0);

    await sleep(300);
    const second = startTestConsole(masters.masters().urls, {
      stateUrl,
      resyncIntervalMs: 3_600_000,
    });
    try {
      await second.sync();
      await vi.waitFor(() => expect(second.ctx.timeline.horizon().basis).toBe("store"));
      const restored = second.ctx.timeline.transitions(10, (t) => t.resource === resource);
      expect(restored.map((t) => t.kind)).toEqual(["released", "acquired"]);
      const gap = await vi.waitFor(() => {
        const found = second.ctx.timeline.transitions(1, (t) => t.kind === "gap")[0];
        expect(found).toBeDefined();
        return found!;
      });
      // The gap covers the time no console watched: from the first one's last as-of to now.
      expect(gap.since).toBeLessThan(gap.at - 300);
      expect(second.ctx.timeline.horizon()).toMatchObject({ durable: true, gapOpen: false });
    } finally {
      await second.close();
    }
  });
});

describe("transition metrics", () => {
  it("label by owner service, bounded: unlabelled is unknown, the most recently seen named, a displaced one's series removed", async () => {
    const metrics = createMetrics([], false, { pinned: [], maxServices: 2 });
    const transition = (service?: string): Transition =>
      makeTransition({
        id: 1,
        at: 0,
        kind: "expired",
        resource: "r",
        value: "v",
        owner: service
          ? { labels: { service }, acquiredAt: 0, ttlMs: 1_000, extensions: null }
          : null,
        heldMs: 1_500,
      });
    for (const service of ["a", "b", "c", "d", undefined, "a"])
      metrics.recordTransition(transition(service));
    const text = await metrics.registry.metrics();
    const series = [
      ...text.matchAll(
        /^redlock_console_lock_transitions_total\{kind="expired",service="([^"]+)"\} (\d+)/gm,
      ),
    ].map(([, service, count]) => `${service}=${count}`);
    // c displaced a, d displaced b, and a (back) displaced c: a's series started again.
    expect(series.sort()).toEqual(["a=1", "d=1", "unknown=1"]);
    expect(text).toMatch(
      /redlock_console_lock_hold_seconds_count\{ended="expired",service="a"\} 1/,
    );
    expect(text).not.toMatch(/service="[bc]"/);
  });
});
