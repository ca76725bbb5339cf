/**
 * Issue 41 item 5: `GET /api/events?since=<epoch ms>` (the Events page's time range) keeps only
 * transitions at or after that instant, on real masters through the route handler; a `since` that
 * is not decimal epoch milliseconds is a 400 with the field named, never a 500 or an ignored filter.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as events from "@/app/api/events/route";
import type { EventsResponse } from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls, sleep } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

let nodes: Redis[];
let redlock: Redlock;
let tc: TestConsole;

beforeAll(async () => {
  nodes = connect(sharedUrls());
  redlock = new Redlock(nodes, { retryCount: 0, session: false });
  tc = startTestConsole(sharedUrls(), { resyncIntervalMs: 3_600_000 });
  await tc.sync();
  await vi.waitFor(() => expect(tc.ctx.timeline.horizon().completeSince).not.toBeNull(), {
    timeout: 10_000,
  });
});

afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

async function hold(resource: string) {
  const lock = await redlock.acquire([resource], 5_000);
  await sleep(100);
  await lock.release();
}

const resourcesOf = (body: EventsResponse) => new Set(body.transitions.map((t) => t.resource));

describe("GET /api/events?since=", () => {
  it("keeps only the transitions at or after `since`", async () => {
    const early = `${tc.prefix}early`;
    const late = `${tc.prefix}late`;
    await hold(early);
    await vi.waitFor(async () => {
      const all = await call<EventsResponse>(events.GET, `/api/events?match=${tc.prefix}*`);
      expect(all.body.transitions.filter((t) => t.resource === early)).toHaveLength(2);
    });
    await sleep(50);
    const sinceMs = Date.now();
    await hold(late);
    await vi.waitFor(async () => {
      const all = await call<EventsResponse>(events.GET, `/api/events?match=${tc.prefix}*`);
      expect(all.body.transitions.filter((t) => t.resource === late)).toHaveLength(2);
    });
    const ranged = await call<EventsResponse>(
      events.GET,
      `/api/events?match=${tc.prefix}*&since=${sinceMs}`,
    );
    expect(ranged.status).toBe(200);
    expect(resourcesOf(ranged.body)).toEqual(new Set([late]));
    expect(ranged.body.transitions.every((t) => t.at >= sinceMs)).toBe(true);
    const everything = await call<EventsResponse>(
      events.GET,
      `/api/events?match=${tc.prefix}*&since=0`,
    );
    expect(resourcesOf(everything.body)).toEqual(new Set([early, late]));
  });

  it.each(["", "abc", "-1", "1e3", "0x10", " 5", "1.5", "99999999999999999"])(
    "answers 400 for since=%j",
    async (since) => {
      const response = await call<{ error: { code: string; message: string } }>(
        events.GET,
        `/api/events?since=${encodeURIComponent(since)}`,
      );
      expect(response.status).toBe(400);
      expect(response.body.error.message).toContain("since");
    },
  );
});
