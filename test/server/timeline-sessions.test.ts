/**
 * Why a hold expired while held, on real masters: the test writes a holder session by hand as
 * docs/holder-sessions.md fixes it (fixtures/holder-session.ts: a connection whose CLIENT ID the
 * heartbeat records), sets a lock value naming it on every node and lets the value expire. The
 * console reads the session once the heartbeat of a stopped holder would be late, and the expired
 * transition says gone, unresponsive or alive. The masters started seconds ago: their uptime is
 * stubbed (node-uptime.ts) so that "gone" can be proved, everything else is read from the servers.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Transition } from "@/lib/api";
import { SESSION_CHECK_DELAY_MS } from "@/lib/server/timeline/expiry-cause";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { commandStats } from "@/scripts/command-stats";
import { FakeHolderSession } from "./fixtures/holder-session";
import { startTestConsole, type TestConsole } from "./helpers";

vi.mock("@/lib/server/sessions/node-uptime", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/server/sessions/node-uptime")>()),
  readUptimeS: async () => 3_600,
}));

const masters = usePrivateMasters(3);
const TTL_MS = 1_000;
let tc: TestConsole;
let nodes: Redis[];
const sessions: FakeHolderSession[] = [];

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  tc = startTestConsole(masters.masters().urls, { resyncIntervalMs: 3_600_000 });
  await tc.historyWhole();
});

afterAll(async () => {
  for (const session of sessions) session.close();
  await tc.close();
  await disconnect(nodes);
});

async function openSession(): Promise<FakeHolderSession> {
  const session = await FakeHolderSession.open(masters.masters().urls.map((url) => ({ url })));
  sessions.push(session);
  await session.heartbeat();
  return session;
}

/**
 * Sets a value of `session` on every node for TTL_MS; resolves with the resource, the value, and
 * the bounds of when it expires: not before `expiresFromMs` (the SETs were sent after it), not
 * after `expiresAtMs` (they had all landed by then).
 */
async function holdFor(session: FakeHolderSession, suffix: string) {
  const resource = `${tc.prefix}${suffix}`;
  const value = session.value(TTL_MS);
  const expiresFromMs = Date.now() + TTL_MS;
  await Promise.all(nodes.map((node) => node.set(resource, value, "PX", TTL_MS)));
  return { resource, value, expiresFromMs, expiresAtMs: Date.now() + TTL_MS };
}

/** The lock's expired transition, once published. */
async function expiredOf(resource: string): Promise<Transition> {
  return vi.waitFor(
    () => {
      const [found] = tc.ctx.timeline.transitions(
        1,
        (t) => t.resource === resource && t.kind === "expired",
      );
      expect(found).toBeDefined();
      return found!;
    },
    { timeout: TTL_MS + SESSION_CHECK_DELAY_MS + 5_000, interval: 50 },
  );
}

/** CLIENT LIST runs on the nodes: the session reads (one per node and read). */
const clientLists = async () => (await commandStats(nodes))["client|list"]?.calls ?? 0;

describe("why a hold expired while held", () => {
  it("its holder's connections closed and its heartbeat stopped: the session was gone (probably crashed)", async () => {
    const session = await openSession();
    const { resource, value, expiresFromMs, expiresAtMs } = await holdFor(session, "crashed");
    session.close();
    const expired = await expiredOf(resource);
    expect(expired).toMatchObject({ value, cause: { session: "gone", sessionId: session.id } });
    // Published once the session was read, dated when the hold ran out.
    expect(expired.at).toBeLessThan(expiresAtMs + 1_000);
    // Not before the delay after the expiry: measured from the earliest the value could expire
    // (the later bound, taken after the SETs returned, was 1 ms late under load).
    expect(expired.cause!.checkedAt!).toBeGreaterThanOrEqual(
      expiresFromMs + SESSION_CHECK_DELAY_MS,
    );
    expect(expired.cause!.lastSeenAt!).toBeLessThan(expiresAtMs);
    expect(expired.summary).toMatch(
      /^expired while held: the holder's session was gone \(last heartbeat [\d.]+ m?s before\): its connections closed and it stopped heartbeating: probably crashed$/,
    );
  });

  it("its connections open but no heartbeat since: the session was unresponsive (paused)", async () => {
    const session = await openSession();
    const { resource } = await holdFor(session, "paused");
    const expired = await expiredOf(resource);
    expect(expired.cause).toMatchObject({ session: "unresponsive", sessionId: session.id });
    expect(expired.summary).toMatch(
      /^expired while held: the holder's session was unresponsive \(last heartbeat [\d.]+ m?s before\): paused or blocked/,
    );
  });

  it("still heartbeating: the session was alive, the holder failed to extend", async () => {
    const session = await openSession();
    const beating = setInterval(() => void session.heartbeat(), 300);
    try {
      const { resource } = await holdFor(session, "alive");
      const expired = await expiredOf(resource);
      expect(expired.cause).toMatchObject({ session: "alive", sessionId: session.id });
      expect(expired.summary).toMatch(
        /^expired while held: the holder's session was alive \(last heartbeat .+ after it ran out\): it failed to extend in time$/,
      );
    } finally {
      clearInterval(beating);
    }
  });

  it("reads sessions only for expired holds: acquiring, extending and releasing cost no read", async () => {
    const session = await openSession();
    const before = await clientLists();
    for (let round = 0; round < 10; round += 1) {
      const { resource, value } = await holdFor(session, `busy-${round}`);
      await sleep(60);
      await Promise.all(nodes.map((node) => node.set(resource, value, "PX", 5_000)));
      await sleep(60);
      await Promise.all(nodes.map((node) => node.del(resource)));
    }
    await tc.sync();
    await sleep(SESSION_CHECK_DELAY_MS + 500);
    expect(await clientLists()).toBe(before);
    const { resource } = await holdFor(session, "one-expiry");
    await expiredOf(resource);
    // One read of the session: one CLIENT LIST per node.
    expect((await clientLists()) - before).toBe(nodes.length);
  });
});
