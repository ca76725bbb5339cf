/**
 * Issue 41: an anonymous reader (public reads, no credential) sees a digest of every lock value on
 * every read route, never the value. One lock of a holder session, waited for by another session
 * (so the wait-for graph names its holder and what it holds), read through each route signed in
 * (the value is there: the test can see it) and anonymously (its token appears nowhere).
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as audit from "@/app/api/audit/route";
import * as contention from "@/app/api/contention/route";
import * as waits from "@/app/api/contention/waits/route";
import * as events from "@/app/api/events/route";
import * as eventStream from "@/app/api/events/stream/route";
import * as health from "@/app/api/health/route";
import * as latency from "@/app/api/latency/route";
import * as lock from "@/app/api/locks/[...resource]/route";
import * as locks from "@/app/api/locks/route";
import * as metrics from "@/app/api/metrics/route";
import * as nodes from "@/app/api/nodes/route";
import * as loginSession from "@/app/api/session/route";
import * as holderSession from "@/app/api/sessions/[id]/route";
import * as holderSessions from "@/app/api/sessions/route";
import { encodeWaiterMember, waitersKey } from "@redlock-console/redlock";
import type { ContentionResponse } from "@/lib/api";
import { connect, disconnect, sharedUrls, sleep } from "../masters";
import { FakeHolderSession } from "./fixtures/holder-session";
import { buildRequest, call, startTestConsole, type TestConsole } from "./helpers";

type Handler = (request: Request) => Promise<Response>;

let tc: TestConsole;
let clients: Redis[];
let holder: FakeHolderSession;
let waiter: FakeHolderSession;
let resource: string;
let value: string;
/** The value's random token: what must not leak, whole or as part of the value. */
let token: string;

/** A route's whole body as text; a stream's, until `resource` shows in it or 3 s pass. */
async function bodyOf(handler: Handler, path: string, signedIn: boolean): Promise<string> {
  const response = await handler(buildRequest(path, signedIn ? {} : { token: null }));
  expect(response.status, path).toBe(200);
  if (!response.headers.get("content-type")?.includes("text/event-stream")) return response.text();
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const endAt = Date.now() + 3_000;
  while (!text.includes(resource) && Date.now() < endAt) {
    const chunk = await Promise.race([reader.read(), sleep(250).then(() => null)]);
    if (chunk?.done) break;
    if (chunk) text += decoder.decode(chunk.value);
  }
  await reader.cancel();
  return text;
}

beforeAll(async () => {
  tc = startTestConsole(sharedUrls(), { publicRead: true });
  clients = connect(sharedUrls());
  await tc.ready();
  // Listed first: the lock is then acquired under the timeline's eyes (an `acquired` transition).
  await tc.sync();
  for (let attempt = 0; attempt < 100 && !tc.ctx.index.complete; attempt += 1) await sleep(20);
  // …and the timeline has seeded its holds from the whole index (on its next tick).
  await sleep(300);
  [holder, waiter] = await Promise.all([
    FakeHolderSession.open(sharedUrls().map((url) => ({ url }))),
    FakeHolderSession.open(
      sharedUrls().map((url) => ({ url })),
      { service: "waiter" },
    ),
  ]);
  await Promise.all([holder.heartbeat(), waiter.heartbeat()]);
  resource = `${tc.prefix}orders:41`;
  value = holder.value();
  token = value.split(":")[1]!;
  const member = encodeWaiterMember({
    id: "0123456789abcdef",
    labelsJson: JSON.stringify(waiter.labels),
    sinceMs: Date.now(),
    sessionId: waiter.id,
  });
  // The waiter's entry first: the lock's read then lists it.
  await Promise.all(
    clients.map((client) => client.zadd(waitersKey(resource), Date.now() + 60_000, member)),
  );
  await Promise.all(clients.map((client) => client.set(resource, value, "PX", 60_000)));
  await tc.sync();
  // The graph is built on the monitor's tick, the transition folded on the timeline's.
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const { body } = await call<ContentionResponse>(contention.GET, "/api/contention");
    const shown = await call<{ transitions: unknown[] }>(events.GET, "/api/events");
    if (
      body.participants[holder.id]?.holds.some((held) => held.resource === resource) &&
      JSON.stringify(shown.body).includes(token)
    )
      break;
    await sleep(50);
  }
});

afterAll(async () => {
  holder.close();
  waiter.close();
  await Promise.all(
    clients.map((client) =>
      client.del(resource, waitersKey(resource), holder.key, waiter.key).catch(() => 0),
    ),
  );
  await disconnect(clients);
  await tc.close();
});

describe("anonymous readers get digests on every read route", () => {
  const routes = (): Array<[string, Handler, string]> => [
    ["GET /api/locks", locks.GET, "/api/locks"],
    ["GET /api/locks/{resource}", lock.GET, `/api/locks/${encodeURIComponent(resource)}`],
    ["GET /api/sessions", holderSessions.GET, "/api/sessions"],
    ["GET /api/sessions/{id}", holderSession.GET, `/api/sessions/${holder.id}`],
    ["GET /api/contention", contention.GET, "/api/contention"],
    ["GET /api/events", events.GET, "/api/events"],
    ["GET /api/events/stream", eventStream.GET, "/api/events/stream?after=0"],
  ];
  const others = (): Array<[string, Handler, string]> => [
    ["GET /api/contention/waits", waits.GET, "/api/contention/waits"],
    ["GET /api/audit", audit.GET, "/api/audit"],
    ["GET /api/nodes", nodes.GET, "/api/nodes"],
    ["GET /api/health", health.GET, "/api/health"],
    ["GET /api/latency", latency.GET, "/api/latency"],
    ["GET /api/metrics", metrics.GET, "/api/metrics"],
    ["GET /api/session", loginSession.GET, "/api/session"],
  ];

  it("each route that shows the lock shows its value signed in: the value is there to leak", async () => {
    for (const [name, handler, path] of routes())
      expect(await bodyOf(handler, path, true), name).toContain(token);
  });

  it("no read route hands an anonymous reader the value, nor its token", async () => {
    for (const [name, handler, path] of [...routes(), ...others()]) {
      const text = await bodyOf(handler, path, false);
      expect(text.includes(token), `${name} leaks the token`).toBe(false);
    }
  });

  it("the wait-for graph names what the holder holds by its digest", async () => {
    const { body } = await call<ContentionResponse>(contention.GET, "/api/contention", {
      token: null,
    });
    const held = body.participants[holder.id]!.holds.find((hold) => hold.resource === resource);
    expect(held!.value).toMatch(/^sha1:[0-9a-f]{12}$/);
  });
});
