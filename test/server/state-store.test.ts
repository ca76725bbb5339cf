/**
 * Issue 32 row 13: the state store (CONSOLE_STATE_URL) is trusted for history only as far as its
 * own clock and the entries' order vouch. Tables of the pure checks (stored-entries.ts), then
 * black-box on real masters: forged entries and a forged as-of are skipped, never shown, and a
 * store that is one of the lock nodes is refused at start.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { makeTransition, type Transition } from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { parseConfig } from "@/lib/server/config";
import { AS_OF_STREAM, TRANSITIONS_STREAM } from "@/lib/server/timeline/state-store";
import { boundedAsOf, checkEntries, type StreamEntry } from "@/lib/server/timeline/stored-entries";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { startTestConsole } from "./helpers";

const transitionAt = (id: number, at: number, extra: Partial<Transition> = {}): string =>
  JSON.stringify(makeTransition({ id, at, kind: "released", resource: "r", ...extra }));
const entry = (id: string, text: string): StreamEntry => [id, ["t", text]];

describe("which stored entries are shown (store clock 10,000; console clock 500 ms ahead)", () => {
  const storeNowMs = 10_000;
  const skewMs = 500;
  it.each<[string, StreamEntry[], number[], Record<string, number>]>([
    // name, entries oldest first, transition ids kept, skipped by reason
    [
      "in order, each dated before its stamp",
      [entry("5000-0", transitionAt(1, 5_400)), entry("6000-0", transitionAt(2, 6_000))],
      [1, 2],
      {},
    ],
    ["not JSON", [entry("5000-0", "{oops")], [], { schema: 1 }],
    [
      "JSON but no transition",
      [entry("5000-0", JSON.stringify({ kind: "force-released" }))],
      [],
      { schema: 1 },
    ],
    ["no t field", [["5000-0", ["x", "1"]]], [], { schema: 1 }],
    [
      "an id not above the previous",
      [
        entry("5000-0", transitionAt(7, 5_000)),
        entry("6000-0", transitionAt(7, 6_000)),
        entry("6500-0", transitionAt(3, 6_000)),
      ],
      [7],
      { "id-order": 2 },
    ],
    [
      "dated after the store stamped it (plus skew and 1 s)",
      [entry("5000-0", transitionAt(1, 6_600))],
      [],
      { "after-stamp": 1 },
    ],
    [
      "dated within skew and tolerance of its stamp",
      [entry("5000-0", transitionAt(1, 6_400))],
      [1],
      {},
    ],
    [
      "a stream id after the store's clock (explicit id)",
      [entry("99999-0", transitionAt(1, 6_000))],
      [],
      { "stream-id": 1 },
    ],
    [
      "a stream id that is no stream id",
      [entry("abc", transitionAt(1, 6_000))],
      [],
      { "stream-id": 1 },
    ],
  ])("%s", (_name, entries, kept, skipped) => {
    const checked = checkEntries(entries, storeNowMs, skewMs);
    expect(checked.transitions.map((t) => t.id)).toEqual(kept);
    expect(Object.fromEntries(Object.entries(checked.skipped).filter(([, n]) => n > 0))).toEqual(
      skipped,
    );
  });

  it.each<[string, StreamEntry | undefined, number | null]>([
    ["none", undefined, null],
    ["as claimed, when before its stamp", ["8000-0", ["a", "8100"]], 8_100],
    ["at most its stamp (on the console clock)", ["8000-0", ["a", "99000"]], 8_500],
    ["an explicit id after the store's clock", ["20000-0", ["a", "20000"]], null],
    ["not a number", ["8000-0", ["a", "soon"]], null],
  ])("the as-of: %s", (_name, last, asOfMs) => {
    expect(boundedAsOf(last, storeNowMs, skewMs)).toBe(asOfMs);
  });
});

const masters = usePrivateMasters(3);
const stateStore = usePrivateMasters(1);
let nodes: Redis[];
let redlock: Redlock;

beforeAll(() => {
  nodes = connect(masters.masters().urls);
  redlock = new Redlock(nodes, { retryCount: 0, session: false });
});

afterAll(async () => {
  await disconnect(nodes);
});

describe("row 13: forged entries and a forged as-of in the state store", () => {
  it("shows none of the forged force-releases, and the gap covers the whole time no console watched", async () => {
    const [stateUrl] = stateStore.masters().urls;
    const options = { stateUrl, resyncIntervalMs: 3_600_000 };
    const first = startTestConsole(masters.masters().urls, options);
    await first.historyWhole();
    const resource = `${first.prefix}stored`;
    const lock = await redlock.acquire([resource], 5_000);
    await sleep(100);
    await lock.release();
    const real = await vi.waitFor(() => {
      const found = first.ctx.timeline.transitions(10, (t) => t.resource === resource);
      expect(found).toHaveLength(2);
      return found;
    });
    await first.close();
    const stoppedAtMs = Date.now();

    const [state] = connect([stateUrl!]);
    const forged = (id: number, at: number) =>
      transitionAt(id, at, {
        kind: "force-released",
        resource,
        by: "session:ceo",
        reason: "never happened",
      });
    const lastId = real[0]!.id;
    await state!.xadd(TRANSITIONS_STREAM, "*", "t", "{not json");
    await state!.xadd(TRANSITIONS_STREAM, "*", "t", forged(lastId, Date.now())); // a replayed id
    await state!.xadd(TRANSITIONS_STREAM, "*", "t", forged(lastId + 1, Date.now() + 60_000)); // dated later
    await state!.xadd(
      TRANSITIONS_STREAM,
      `${Date.now() + 3_600_000}-0`,
      "t",
      forged(lastId + 2, Date.now()),
    ); // explicit future id
    // "The console watched until a minute from now": as the as-of stream, and as the key earlier versions read.
    await state!.xadd(AS_OF_STREAM, "*", "a", String(Date.now() + 60_000));
    await state!.set("redlock-console:transitions:as-of", String(Date.now() + 60_000));
    await disconnect([state!]);

    await sleep(1_500);
    const second = startTestConsole(masters.masters().urls, options);
    try {
      await second.sync();
      await vi.waitFor(() => expect(second.ctx.timeline.horizon().basis).toBe("store"));
      const restored = second.ctx.timeline.transitions(10, (t) => t.resource === resource);
      expect(restored.map((t) => [t.kind, t.by])).toEqual([
        ["released", null],
        ["acquired", null],
      ]);
      const gap = await vi.waitFor(() => {
        const found = second.ctx.timeline.transitions(1, (t) => t.kind === "gap")[0];
        expect(found).toBeDefined();
        return found!;
      });
      // From when the first console stopped (the forger's as-of bounded by the store's stamp).
      expect(gap.since!).toBeLessThanOrEqual(stoppedAtMs + 200);
      expect(gap.at - gap.since!).toBeGreaterThanOrEqual(1_500);
    } finally {
      await second.close();
    }
  });
});

describe("row 13: a state store that is one of the lock nodes", () => {
  it("is refused by the configuration when its URL names a lock node", () => {
    const [url] = masters.masters().urls;
    const env = {
      REDLOCK_NODES: masters.masters().urls.join(","),
      CONSOLE_READ_ONLY: "true",
      CONSOLE_STATE_URL: url!.replace("127.0.0.1", "localhost"),
    };
    expect(() => parseConfig(env)).toThrow(/CONSOLE_STATE_URL: names lock node 127\.0\.0\.1:\d+/);
  });

  it("is refused at start by run_id when another URL names it: nothing written there, history in memory only", async () => {
    const port = new URL(masters.masters().urls[0]!).port;
    // Another spelling of the same server: the run_id is what tells.
    const stateUrl = `redis://127.0.0.1:${port}/0?alias=1`;
    const tc = startTestConsole(masters.masters().urls, { stateUrl, resyncIntervalMs: 3_600_000 });
    try {
      await tc.historyWhole();
      expect(tc.ctx.timeline.horizon().durable).toBe(false);
      const lock = await redlock.acquire([`${tc.prefix}x`], 5_000);
      await lock.release();
      await sleep(600); // three flush intervals
      expect(await nodes[0]!.exists(TRANSITIONS_STREAM, AS_OF_STREAM)).toBe(0);
    } finally {
      await tc.close();
    }
  });
});
