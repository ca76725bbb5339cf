/**
 * Keyspace notifications switched off at run time (issue 49, row 5), on five real masters and a
 * real console: `CONFIG SET notify-keyspace-events ""` on every master leaves the subscriber
 * connected and silent, which used to look like a quiet keyspace (`watching`, complete, no lock
 * listed) until the 300 s resync. The console reads the flags of a watched node again every
 * CONSOLE_NOTIFY_CHECK_MS: it then relists the node from when they were last seen whole, and
 * either turns them back on (CONSOLE_ENABLE_KEYSPACE_EVENTS) or polls the node, saying why on its
 * card, until they are back.
 */
// test-group: timed
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as locksRoute from "@/app/api/locks/route";
import * as nodesRoute from "@/app/api/nodes/route";
import type { LocksResponse, NodesResponse } from "@/lib/api";
import { NEEDED_EVENT_FLAGS } from "@/lib/server/locks/watch/events/event-flags";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const { masters } = usePrivateMasters(5);
let admins: Redis[];
let redlock: Redlock;
let tc: TestConsole | undefined;
/** Generous: the check runs every second here, a relist and a poll pass follow. */
const DEADLINE = { timeout: 20_000, interval: 100 };

beforeAll(() => {
  admins = connect(masters().urls);
  redlock = new Redlock(connect(masters().urls), { retryCount: 0 });
});
afterEach(async () => {
  await tc?.close();
  tc = undefined;
  await setFlags(NEEDED_EVENT_FLAGS);
});
afterAll(async () => {
  await redlock.quit();
  await disconnect(admins);
});

const setFlags = (flags: string) =>
  Promise.all(admins.map((admin) => admin.config("SET", "notify-keyspace-events", flags)));

async function consoleWatching(enableKeyspaceEvents: boolean): Promise<TestConsole> {
  const started = startTestConsole(masters().urls, {
    notifyCheckIntervalMs: 1_000,
    enableKeyspaceEvents,
    resyncIntervalMs: 3_600_000, // no resync heals anything here
  });
  tc = started;
  await started.historyWhole();
  expect(await modes()).toEqual(Array(5).fill("watching"));
  return started;
}

async function locks(): Promise<LocksResponse> {
  const response = await call<LocksResponse>(locksRoute.GET, "/api/locks?limit=100");
  expect(response.status).toBe(200);
  return response.body;
}

const modes = async () => (await locks()).listing.nodes.map((node) => node.mode);

async function nodeCards(): Promise<NodesResponse["nodes"]> {
  const response = await call<NodesResponse>(nodesRoute.GET, "/api/nodes");
  expect(response.status).toBe(200);
  return response.body.nodes;
}

const stateOf = async (resource: string) =>
  (await locks()).items.find((row) => row.resource === resource)?.state ?? null;

describe("notify-keyspace-events switched off at run time", () => {
  it("polls every node, its card saying why, lists a lock taken after, sees it released, and watches again once the flags are back", async () => {
    const console = await consoleWatching(false);
    await setFlags("");
    await expect.poll(modes, DEADLINE).toEqual(Array(5).fill("polling"));
    for (const card of await nodeCards()) {
      expect(card.index.reason).toContain("changed at run time");
      expect(card.index.reason).toContain(`lacking ${NEEDED_EVENT_FLAGS}`);
    }

    const resource = `${console.prefix}after-off`;
    const lock = await redlock.acquire([resource], 60_000);
    await expect.poll(() => stateOf(resource), DEADLINE).toBe("held");
    await Promise.all(admins.map((admin) => admin.del(resource)));
    await expect.poll(() => stateOf(resource), DEADLINE).toBeNull();
    await lock.release().catch(() => undefined);

    await setFlags(NEEDED_EVENT_FLAGS);
    await expect.poll(modes, DEADLINE).toEqual(Array(5).fill("watching"));
    for (const card of await nodeCards()) expect(card.index.reason).toBeNull();
    expect((await locks()).listing.complete).toBe(true);
  });

  it("with CONSOLE_ENABLE_KEYSPACE_EVENTS, turns them back on and relists: a lock taken while they were off is listed", async () => {
    const console = await consoleWatching(true);
    // History has begun (a transition recorded): what follows is a gap, not a new beginning.
    const before = `${console.prefix}before`;
    const earlier = await redlock.acquire([before], 60_000);
    await expect.poll(() => stateOf(before), DEADLINE).toBe("held");
    await setFlags("");
    const switchedOffAtMs = Date.now(); // a check sent later finds them off
    // Published with the flags off: no notification names it, only the relist can find it.
    const resource = `${console.prefix}while-off`;
    const lock = await redlock.acquire([resource], 60_000);
    await expect.poll(() => stateOf(resource), DEADLINE).toBe("held");
    const flags = await Promise.all(
      admins.map(
        async (admin) => ((await admin.config("GET", "notify-keyspace-events")) as string[])[1],
      ),
    );
    for (const flag of flags)
      for (const needed of NEEDED_EVENT_FLAGS) expect(flag).toContain(needed);
    await expect.poll(modes, DEADLINE).toEqual(Array(5).fill("watching"));
    expect((await locks()).listing.complete).toBe(true);
    // History says it may have missed what happened meanwhile: a gap from before the switch.
    const gapSince = () =>
      console.ctx.timeline.transitions(1, (transition) => transition.kind === "gap")[0]?.since;
    await expect.poll(gapSince, DEADLINE).toBeLessThanOrEqual(switchedOffAtMs);
    await Promise.all([lock.release(), earlier.release()]);
  });
});
