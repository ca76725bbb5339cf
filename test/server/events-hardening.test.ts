/**
 * Issue 32, the event rows, black-box on real masters through the route handlers: junk episodes
 * cannot evict real transitions (row 12); stream slots, per-client caps and Retry-After (row 3);
 * a reader that does not read is dropped at its buffer cap (row 4); a stream ends at logout
 * (row 5); event ids survive a restart and Last-Event-ID is parsed strictly (row 14).
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as events from "@/app/api/events/route";
import type { EventsResponse, Transition } from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(3);
let nodes: Redis[];
let redlock: Redlock;

beforeAll(() => {
  nodes = connect(masters.masters().urls);
  redlock = new Redlock(nodes, { retryCount: 0, session: false });
});

afterAll(async () => {
  await disconnect(nodes);
});

async function eventsOf(query: string): Promise<Transition[]> {
  const response = await call<EventsResponse>(events.GET, `/api/events?${query}&limit=1000`);
  expect(response.status).toBe(200);
  return response.body.transitions;
}

describe("row 12: partial and conflict episodes cannot evict real transitions", () => {
  let tc: TestConsole;
  beforeAll(async () => {
    tc = startTestConsole(masters.masters().urls, { historyMax: 100, resyncIntervalMs: 3_600_000 });
    await tc.sync();
    await vi.waitFor(() => expect(tc.ctx.timeline.horizon().completeSince).not.toBeNull());
  });
  afterAll(() => tc.close());

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
    // One script, 300 keys on one node of three: each a partial episode once it lasts 1 s.
    const junk = Array.from({ length: 300 }, (_, index) => `${tc.prefix}junk:${index}`);
    await nodes[0]!.eval(
      "for i, key in ipairs(KEYS) do redis.call('SET', key, 'junk-' .. i, 'PX', 60000) end",
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
