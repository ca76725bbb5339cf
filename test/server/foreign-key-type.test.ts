/**
 * Extend and release name keys a person typed: a key of another type (a Redisson hash lock, a
 * list) makes the library's GET fail with WRONGTYPE on every node. That is "not held with this
 * value" (409), never a 5xx, and the key is left untouched.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as extend from "@/app/api/locks/extend/route";
import * as release from "@/app/api/locks/release/route";
import * as locks from "@/app/api/locks/route";
import type { ErrorBody, LockGrantResponse, ReleaseResponse } from "@/lib/api";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
/** A value this console acquired (of another resource): the playground acts only on its own values. */
let consoleValue: string;
const key = (name: string) => `${tc.prefix}${name}`;

beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
  await Promise.all(
    nodes.map((node) =>
      node.hset(key("redisson"), "uuid-1:1", "1").then(() => node.pexpire(key("redisson"), 60_000)),
    ),
  );
  const acquired = await call<LockGrantResponse>(locks.POST, "/api/locks", {
    body: { resources: [key("own")], ttlMs: 60_000 },
  });
  consoleValue = acquired.body.lock.value;
});

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.del(key("redisson"), key("own"))));
  await tc.close();
  await disconnect(nodes);
});

describe("extend and release of a key that is not a string lock", () => {
  it("answers extend with 409 lock_not_held and leaves the key alone", async () => {
    const response = await call<ErrorBody>(extend.POST, "/api/locks/extend", {
      body: { resources: [key("redisson")], value: consoleValue, ttlMs: 1_000 },
    });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("lock_not_held");
    const ttls = await Promise.all(nodes.map((node) => node.pttl(key("redisson"))));
    for (const ttlMs of ttls) expect(ttlMs).toBeGreaterThan(30_000);
  });

  it("answers release with 200 and releasedCount 0, the key kept", async () => {
    const response = await call<ReleaseResponse>(release.POST, "/api/locks/release", {
      body: { resources: [key("redisson")], value: consoleValue },
    });
    expect(response.status).toBe(200);
    expect(response.body.releasedCount).toBe(0);
    const kinds = await Promise.all(nodes.map((node) => node.type(key("redisson"))));
    expect(kinds).toEqual(nodes.map(() => "hash"));
  });
});
