/**
 * The index's session handler (sessions/session-holdings.ts) on the shared masters: which locks
 * name which holder session, kept as locks are acquired, change hands, are released and expire,
 * and which locks are waited for; what a session's page and a release of a whole session read
 * instead of walking the index.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeWaiterMember, waitersKey } from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls, sleep } from "../masters";
import { FakeHolderSession } from "./fixtures/holder-session";
import { startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;
let clients: Redis[];
let alpha: FakeHolderSession;
let beta: FakeHolderSession;
const key = (name: string) => `${tc.prefix}${name}`;

/** Sets `value` on the nodes at `nodeIndexes` (all by default), then waits for index and handlers. */
async function write(name: string, value: string, ttlMs = 60_000, nodeIndexes = [0, 1, 2, 3, 4]) {
  await Promise.all(nodeIndexes.map((at) => clients[at]!.set(name, value, "PX", ttlMs)));
  await tc.sync();
}

const holdings = (session: FakeHolderSession) =>
  tc.ctx.sessionHoldings.holdingsOf(session.id).map((holding) => holding.key);

beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  clients = connect(sharedUrls());
  await tc.ready();
  await tc.sync();
  [alpha, beta] = await Promise.all([
    FakeHolderSession.open(sharedUrls().map((url) => ({ url }))),
    FakeHolderSession.open(sharedUrls().map((url) => ({ url }))),
  ]);
});

afterAll(async () => {
  alpha.close();
  beta.close();
  await Promise.all(
    clients.map(async (client) => {
      const keys = await client.keys(`*${tc.prefix}*`);
      if (keys.length) await client.del(...keys);
    }),
  );
  await disconnect(clients);
  await tc.close();
});

describe("session holdings kept by the index's handler", () => {
  it("files a lock under its session when acquired, on all nodes or a majority, keys in byte order", async () => {
    const first = alpha.value();
    await write(key("b-orders"), first);
    await write(key("a-orders"), alpha.value(), 60_000, [0, 2, 4]);
    expect(holdings(alpha)).toEqual([key("a-orders"), key("b-orders")]);
    expect(tc.ctx.sessionHoldings.holdingsOf(alpha.id)[1]!.value).toBe(first);
    expect(tc.ctx.sessionHoldings.heldCount(alpha.id)).toBe(2);
    expect([...tc.ctx.sessionHoldings.sessions()]).toContain(alpha.id);
  });

  it("moves a lock to the session that takes it over, and drops it when released", async () => {
    await write(key("handover"), alpha.value());
    expect(holdings(alpha)).toContain(key("handover"));
    await write(key("handover"), beta.value());
    expect(holdings(alpha)).not.toContain(key("handover"));
    expect(holdings(beta)).toEqual([key("handover")]);

    await Promise.all(clients.map((client) => client.del(key("handover"))));
    await tc.sync();
    expect(holdings(beta)).toEqual([]);
    expect(tc.ctx.sessionHoldings.heldCount(beta.id)).toBe(0);
    expect([...tc.ctx.sessionHoldings.sessions()]).not.toContain(beta.id);
  });

  it("drops a lock that expires, without a release", async () => {
    await write(key("short"), beta.value(), 400);
    expect(holdings(beta)).toEqual([key("short")]);
    await sleep(600);
    tc.ctx.index.sweep();
    await tc.sync();
    expect(holdings(beta)).toEqual([]);
    expect(tc.ctx.sessionHoldings.heldCount(beta.id)).toBe(0);
  });

  it("keeps a lock held on a minority of nodes under its plurality value's session", async () => {
    await write(key("split"), alpha.value(), 60_000, [0, 1]);
    await write(key("split"), beta.value(), 60_000, [2]);
    expect(holdings(alpha)).toContain(key("split"));
    expect(holdings(beta)).not.toContain(key("split"));
  });

  it("knows which locks are waited for, and forgets one whose waiters are gone", async () => {
    const member = encodeWaiterMember({
      id: "0123456789abcdef",
      labelsJson: "{}",
      sinceMs: Date.now(),
      sessionId: beta.id,
    });
    await Promise.all(
      clients.map((client) => client.zadd(waitersKey(key("wanted")), Date.now() + 60_000, member)),
    );
    await write(key("wanted"), alpha.value());
    const waited = () => tc.ctx.sessionHoldings.waitedKeys(64).keys;
    expect(waited()).toContain(key("wanted"));

    await Promise.all(clients.map((client) => client.del(waitersKey(key("wanted")))));
    await write(key("wanted"), alpha.value());
    expect(waited()).not.toContain(key("wanted"));
  });
});
