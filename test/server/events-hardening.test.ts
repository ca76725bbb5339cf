/**
 * Issue 32, the event rows, black-box on real masters through the route handlers: junk episodes
 * cannot evict real transitions (row 12); stream slots, per-client caps and Retry-After (row 3);
 * a reader that does not read is dropped at its buffer cap (row 4); a stream ends at logout
 * (row 5); event ids survive a restart and Last-Event-ID is parsed strictly (row 14).
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as events from "@/app/api/events/route";
import * as stream from "@/app/api/events/stream/route";
import * as session from "@/app/api/session/route";
import { makeTransition, type EventsResponse, type Transition } from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { PEER_ADDRESS_HEADER } from "@/lib/server/auth/client-info";
import { EVENT_STREAM_LIMITS, eventStreamsOf } from "@/lib/server/timeline/event-streams";
import { History } from "@/lib/server/timeline/history";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import {
  ADMIN_TOKEN,
  buildRequest,
  call,
  startTestConsole,
  type CallOptions,
  type TestConsole,
} from "./helpers";

const masters = usePrivateMasters(3);
/** A Redis for console state (CONSOLE_STATE_URL): never a lock node. */
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

/** Opens a stream (a request the test can abort) and returns its response and a reader. */
async function openStream(path = "/api/events/stream", options: CallOptions = {}) {
  const controller = new AbortController();
  const built = buildRequest(path, options);
  const response = await stream.GET(
    new Request(built.url, { headers: built.headers, signal: controller.signal }),
  );
  const decoder = new TextDecoder();
  let text = "";
  let ended = false;
  const reader = response.body?.getReader();
  return {
    response,
    /** Reads for `ms` (or until the stream ends); returns everything read so far. */
    async readFor(ms: number): Promise<{ text: string; ended: boolean }> {
      const deadline = Date.now() + ms;
      while (reader && !ended && Date.now() < deadline) {
        const chunk = await Promise.race([
          reader.read(),
          sleep(Math.max(1, deadline - Date.now())).then(() => null),
        ]);
        if (chunk === null) break;
        if (chunk.done) ended = true;
        else text += decoder.decode(chunk.value);
      }
      return { text, ended };
    },
    async close() {
      controller.abort();
      await reader?.cancel().catch(() => {});
    },
  };
}

const transitionsIn = (text: string): Transition[] =>
  text
    .split("\n\n")
    .filter((frame) => frame.includes("event: transition"))
    .map((frame) => JSON.parse(frame.split("data: ")[1]!) as Transition);

/** Acquires and releases `resource`, held long enough to be read (not a brief hold). */
async function hold(resource: string) {
  const lock = await redlock.acquire([resource], 5_000);
  await sleep(150);
  await lock.release();
}

async function eventsOf(query: string): Promise<Transition[]> {
  const response = await call<EventsResponse>(events.GET, `/api/events?${query}&limit=1000`);
  expect(response.status).toBe(200);
  return response.body.transitions;
}

describe("row 12: partial and conflict episodes cannot evict real transitions", () => {
  let tc: TestConsole;
  beforeAll(async () => {
    tc = startTestConsole(masters.masters().urls, { historyMax: 100, resyncIntervalMs: 3_600_000 });
    await tc.historyWhole();
  });
  afterAll(() => tc.close());

  it("the bounds, in memory: episodes fill their own ring, newest() merges both rings by id", () => {
    const history = new History(8);
    let id = 0;
    const push = (kind: Transition["kind"]) =>
      history.push(makeTransition({ id: ++id, at: id, kind, resource: `r${id}` }));
    push("acquired");
    push("expired");
    expect(history.full).toBe(false);
    for (let index = 0; index < 100; index += 1) push("partial");
    push("released");
    expect(history.full).toBe(true);
    const kept = history.newest(100, () => true);
    expect(kept.map((t) => t.kind)).toEqual([
      "released",
      "partial",
      "partial",
      "expired",
      "acquired",
    ]);
    expect(kept.map((t) => t.id)).toEqual([...kept.map((t) => t.id)].sort((a, b) => b - a));
    // History that is complete only since the oldest kept episode (earlier ones were dropped).
    expect(history.oldest?.kind).toBe("partial");
    expect(new History(3).full).toBe(false);
  });

  it("300 junk keys on one node (history of 100): the real lock's acquired and expired stay", async () => {
    const resource = `${tc.prefix}real`;
    await redlock.acquire([resource], 400);
    await vi.waitFor(
      async () =>
        expect(
          (await eventsOf(`resource=${encodeURIComponent(resource)}`)).map((t) => t.kind),
        ).toEqual(["expired", "acquired"]),
      { timeout: 10_000, interval: 100 },
    );
    // One script, 300 lock-shaped keys (40-digit tokens with a TTL: anything else is skipped, not a
    // lock) on one node of three: each a partial episode once it lasts 1 s.
    const junk = Array.from({ length: 300 }, (_, index) => `${tc.prefix}junk:${index}`);
    await nodes[0]!.eval(
      "for i, key in ipairs(KEYS) do redis.call('SET', key, string.format('%040d', i), 'PX', 60000) end",
      junk.length,
      ...junk,
    );
    await vi.waitFor(
      async () => {
        const partial = await eventsOf("kind=partial");
        expect(partial.some((t) => t.resource === junk.at(-1))).toBe(true);
      },
      { timeout: 15_000, interval: 200 },
    );
    await sleep(1_500);
    expect((await eventsOf("kind=partial")).length).toBeGreaterThan(0);
    expect((await eventsOf(`resource=${encodeURIComponent(resource)}`)).map((t) => t.kind)).toEqual(
      ["expired", "acquired"],
    );
    await nodes[0]!.del(...junk);
  });
});

describe("row 14: event ids survive a restart; Last-Event-ID is parsed strictly", () => {
  it("an empty, hex, exponent or garbage Last-Event-ID replays nothing; a decimal one replays after it", async () => {
    const tc = startTestConsole(masters.masters().urls, { resyncIntervalMs: 3_600_000 });
    try {
      await tc.historyWhole();
      const resource = `${tc.prefix}ids`;
      await hold(resource);
      const seen = await vi.waitFor(async () => {
        const found = await eventsOf(`resource=${encodeURIComponent(resource)}`);
        expect(found.map((t) => t.kind)).toEqual(["released", "acquired"]);
        return found;
      });
      for (const header of ["", "0x10", "1e1", "garbage", "-1", "1.5", "99999999999999999"]) {
        const opened = await openStream("/api/events/stream", {
          headers: { "last-event-id": header },
        });
        expect(opened.response.status, header).toBe(200);
        const { text } = await opened.readFor(300);
        await opened.close();
        expect(transitionsIn(text), JSON.stringify(header)).toEqual([]);
      }
      const opened = await openStream(
        `/api/events/stream?resource=${encodeURIComponent(resource)}`,
        { headers: { "last-event-id": String(seen[1]!.id) } },
      );
      const { text } = await opened.readFor(300);
      await opened.close();
      expect(transitionsIn(text).map((t) => t.id)).toEqual([seen[0]!.id]);
      for (const after of ["0x10", "1e1", "", "x"]) {
        const response = await call(events.GET, `/api/events?after=${after}`);
        expect(response.status, after).toBe(400);
      }
    } finally {
      await tc.close();
    }
  });

  it("after a restart, ids go on above the earlier run's and a client resuming from one of them gets only what followed", async () => {
    const [stateUrl] = stateStore.masters().urls;
    const options = { stateUrl, resyncIntervalMs: 3_600_000 };
    const first = startTestConsole(masters.masters().urls, options);
    const resource = `${first.prefix}restart`;
    let lastSeen: Transition;
    try {
      await first.historyWhole();
      await hold(resource);
      lastSeen = await vi.waitFor(() => {
        const found = first.ctx.timeline.transitions(10, (t) => t.resource === resource);
        expect(found.map((t) => t.kind)).toEqual(["released", "acquired"]);
        return found[0]!;
      });
    } finally {
      await first.close();
    }
    await sleep(50);
    const second = startTestConsole(masters.masters().urls, {
      ...options,
      lockMatch: [`${first.prefix}*`],
    });
    try {
      await second.sync();
      await vi.waitFor(() => expect(second.ctx.timeline.horizon().basis).toBe("store"));
      // History resumes once the timeline has seen the index whole (its handler runs off the
      // index's call stack: it may see it a tick after the index is): a lock taken before that is
      // part of the restart's gap, re-read as held, never an acquisition of this run.
      await vi.waitFor(() => expect(second.ctx.timeline.horizon().gapOpen).toBe(false));
      await hold(resource);
      await vi.waitFor(() =>
        expect(
          second.ctx.timeline.transitions(10, (t) => t.resource === resource).map((t) => t.kind),
        ).toEqual(["released", "acquired", "released", "acquired"]),
      );
      const opened = await openStream(
        `/api/events/stream?resource=${encodeURIComponent(resource)}`,
        { headers: { "last-event-id": String(lastSeen.id) } },
      );
      const { text } = await opened.readFor(300);
      await opened.close();
      const replayed = transitionsIn(text);
      // The restart's gap (it concerns every lock), then the second run's hold — not the first's.
      expect(replayed.map((t) => t.kind)).toEqual(["gap", "acquired", "released"]);
      for (const transition of replayed) expect(transition.id).toBeGreaterThan(lastSeen.id);
      lastSeen = second.ctx.timeline.transitions(1, (t) => t.resource === resource)[0]!;
    } finally {
      await second.close();
    }
    // Restarted without a state store: nothing kept, but what happens next is still "after".
    const third = startTestConsole(masters.masters().urls, {
      resyncIntervalMs: 3_600_000,
      lockMatch: [`${first.prefix}*`],
    });
    try {
      await third.historyWhole();
      await hold(resource);
      await vi.waitFor(() =>
        expect(third.ctx.timeline.transitions(10, (t) => t.resource === resource)).toHaveLength(2),
      );
      // The client reconnects after the new run's hold: replayed, not skipped as "older".
      const opened = await openStream(
        `/api/events/stream?resource=${encodeURIComponent(resource)}`,
        { headers: { "last-event-id": String(lastSeen.id) } },
      );
      const { text } = await opened.readFor(300);
      await opened.close();
      expect(
        transitionsIn(text)
          .filter((t) => t.kind !== "gap")
          .map((t) => t.kind),
      ).toEqual(["acquired", "released"]);
    } finally {
      await third.close();
    }
  });
});

describe("row 14: keys that are not UTF-8 keep their bytes in transitions and filters", () => {
  it("\\xffA and \\xfeA: each transition carries its own bytes, and a filter matches one of them only", async () => {
    const tc = startTestConsole(masters.masters().urls, { resyncIntervalMs: 3_600_000 });
    try {
      await tc.historyWhole();
      const keys = [0xff, 0xfe].map((byte) =>
        Buffer.concat([Buffer.from(tc.prefix), Buffer.from([byte, 0x41])]),
      );
      for (const key of keys)
        await Promise.all(nodes.map((node) => node.set(key, "a".repeat(40), "PX", 60_000)));
      const found = await vi.waitFor(
        async () => {
          const acquired = (
            await eventsOf(`match=${encodeURIComponent(`${tc.prefix}*`)}&kind=acquired`)
          ).filter((t) => t.resource.startsWith(tc.prefix));
          expect(acquired).toHaveLength(2);
          return acquired;
        },
        { timeout: 10_000, interval: 100 },
      );
      const wanted = keys.map((key) => key.toString("base64")).sort();
      expect(found.map((t) => t.resourceBase64).sort()).toEqual(wanted);
      // The lossy name matches neither exactly; the bytes match one each.
      const lossy = `${tc.prefix}\ufffdA`;
      expect(await eventsOf(`resource=${encodeURIComponent(lossy)}`)).toEqual([]);
      for (const key of keys) {
        const one = await eventsOf(`resourceBase64=${encodeURIComponent(key.toString("base64"))}`);
        expect(one.map((t) => t.resourceBase64)).toEqual([key.toString("base64")]);
      }
      for (const key of keys) await Promise.all(nodes.map((node) => node.del(key)));
    } finally {
      await tc.close();
    }
  });
});

describe("rows 3–5: event streams", () => {
  let tc: TestConsole;
  const opened: Array<{ close(): Promise<void> }> = [];
  const from = (client: string) => ({ [PEER_ADDRESS_HEADER]: client });
  async function closeAll() {
    await Promise.all(opened.splice(0).map((one) => one.close()));
  }
  afterAll(async () => {
    await closeAll();
  });

  describe("with public reads", () => {
    beforeAll(async () => {
      tc = startTestConsole(masters.masters().urls, {
        resyncIntervalMs: 3_600_000,
        readLimitPerS: 1_000_000,
      });
      await tc.sync();
    });
    afterAll(async () => {
      await closeAll();
      await tc.close();
    });

    it("row 3: one anonymous client is capped; anonymous clients together cannot take the signed-in share; 429s carry Retry-After", async () => {
      const { perClientAnonymous, anonymousShare, total } = EVENT_STREAM_LIMITS;
      expect(anonymousShare).toBeLessThan(total);
      for (let index = 0; index < perClientAnonymous; index += 1) {
        const one = await openStream("/api/events/stream", {
          token: null,
          headers: from("10.0.0.1"),
        });
        opened.push(one);
        expect(one.response.status).toBe(200);
      }
      const capped = await openStream("/api/events/stream", {
        token: null,
        headers: from("10.0.0.1"),
      });
      expect(capped.response.status).toBe(429);
      expect(Number(capped.response.headers.get("retry-after"))).toBeGreaterThan(0);
      // Many anonymous clients fill the anonymous share, and no more.
      let client = 2;
      while (eventStreamsOf(tc.ctx).stats().anonymous < anonymousShare) {
        for (let index = 0; index < perClientAnonymous; index += 1) {
          if (eventStreamsOf(tc.ctx).stats().anonymous >= anonymousShare) break;
          const one = await openStream("/api/events/stream", {
            token: null,
            headers: from(`10.0.0.${client}`),
          });
          opened.push(one);
          expect(one.response.status).toBe(200);
        }
        client += 1;
      }
      const anonymous = await openStream("/api/events/stream", {
        token: null,
        headers: from("10.0.1.1"),
      });
      expect(anonymous.response.status).toBe(429);
      expect(Number(anonymous.response.headers.get("retry-after"))).toBeGreaterThan(0);
      // The admin still gets a stream, from a client that holds anonymous ones too.
      const admin = await openStream("/api/events/stream", { headers: from("10.0.0.1") });
      opened.push(admin);
      expect(admin.response.status).toBe(200);
      await closeAll();
      expect(eventStreamsOf(tc.ctx).stats()).toMatchObject({ open: 0, anonymous: 0 });
    });

    it("row 4: a stream whose reader does not read is closed at its buffer bound, never buffered past it", async () => {
      const { bufferBytes } = EVENT_STREAM_LIMITS;
      const slow = await openStream("/api/events/stream");
      expect(slow.response.status).toBe(200);
      // A reader that reads, alongside: it measures how much was sent.
      const fast = await openStream("/api/events/stream");
      const streams = eventStreamsOf(tc.ctx);
      const dropped = streams.stats().droppedSlowReaders;
      let round = 0;
      let sent = 0;
      while (sent < 2 * bufferBytes && round < 40) {
        await Promise.all(
          Array.from({ length: 100 }, (_, index) => hold(`${tc.prefix}slow:${round}:${index}`)),
        );
        sent = new TextEncoder().encode((await fast.readFor(200)).text).byteLength;
        round += 1;
      }
      expect(sent).toBeGreaterThanOrEqual(2 * bufferBytes);
      await fast.close();
      // What it can still read is what was queued: at most the bound (plus the frame that crossed
      // it), then the end.
      const { text, ended } = await slow.readFor(2_000);
      expect(ended).toBe(true);
      const bytes = new TextEncoder().encode(text).byteLength;
      expect(bytes).toBeGreaterThan(bufferBytes / 2);
      expect(bytes).toBeLessThan(bufferBytes + 16 * 1024);
      expect(streams.stats().droppedSlowReaders).toBe(dropped + 1);
      expect(streams.stats().open).toBe(0);
      await slow.close();
    }, 60_000);
  });

  describe("with public reads off", () => {
    beforeAll(async () => {
      tc = startTestConsole(masters.masters().urls, {
        resyncIntervalMs: 3_600_000,
        publicRead: false,
        sessionTtlS: 3,
      });
      await tc.historyWhole();
    });
    afterAll(async () => {
      await closeAll();
      await tc.close();
    });

    async function login(): Promise<string> {
      const response = await call(session.POST, "/api/session", {
        body: { token: ADMIN_TOKEN },
        token: null,
      });
      expect(response.status).toBe(200);
      return response.headers.get("set-cookie")!.split(";")[0]!;
    }

    it("row 5: a stream opened with a login ends at logout", async () => {
      const cookie = await login();
      const live = await openStream("/api/events/stream", { token: null, cookie });
      expect(live.response.status).toBe(200);
      await hold(`${tc.prefix}before-logout`);
      expect((await live.readFor(1_000)).text).toContain(`${tc.prefix}before-logout`);
      const out = await call(session.DELETE, "/api/session", {
        method: "DELETE",
        token: null,
        cookie,
      });
      expect(out.status).toBe(200);
      await hold(`${tc.prefix}after-logout`);
      const { text, ended } = await live.readFor(1_500);
      expect(text).not.toContain(`${tc.prefix}after-logout`);
      expect(ended).toBe(true);
      await live.close();
    });

    it("row 5: a stream opened with a login ends when the session expires", async () => {
      const cookie = await login();
      const live = await openStream("/api/events/stream", { token: null, cookie });
      expect(live.response.status).toBe(200);
      await sleep(3_200);
      await hold(`${tc.prefix}after-expiry`);
      const { text, ended } = await live.readFor(1_500);
      expect(text).not.toContain(`${tc.prefix}after-expiry`);
      expect(ended).toBe(true);
      await live.close();
    });
  });
});
