/**
 * ACQUIRE_ONE and RELEASE_ONE are the one-resource forms of ACQUIRE and RELEASE (cheaper per call).
 * Each pair runs on the same starting state of a real Redis and must leave the same keys, values,
 * TTLs, and count the same number of resources applied. ACQUIRE_ONE goes as a plain SET NX PX on its
 * own and as its Lua body in a batch: both forms are compared with ACQUIRE; so is WAITERS_REMOVE_ONE
 * (a plain ZREM) with WAITERS' removal. Values are 2.x's (owner in the value) and
 * bare tokens (`owner: false`).
 */
import type { Redis } from "ioredis";
import { beforeEach, describe, expect, it } from "vitest";
import { ACQUIRE, ACQUIRE_ONE } from "../../lib/redlock/acquire";
import { RELEASE, RELEASE_ONE } from "../../lib/redlock/release";
import { waitersKey } from "../../lib/redlock/keys";
import { WAITERS, WAITERS_REMOVE_ONE } from "../../lib/redlock/waiters";
import { encodeValue } from "../../lib/redlock/value";
import { commandCalls, usePrivateClient } from "../masters";

const privateClient = usePrivateClient();
let client: Redis;
const calls = (command: string) => commandCalls(client, command);

beforeEach(async () => {
  client = privateClient();
  await client.flushall();
});

const TOKEN_VALUE = "a".repeat(40);
const OWNED_VALUE = encodeValue("a".repeat(40), JSON.stringify({ host: "test" }), 1, 30_000);
const OTHER = "b".repeat(40);

/** Every key with its type, value (or hash) and whether it has a TTL of about `ttlMs`. */
async function state(ttlMs: number) {
  const keys = (await client.keys("*")).sort();
  return Promise.all(
    keys.map(async (key) => {
      const type = await client.type(key);
      const content =
        type === "hash"
          ? await client.hgetall(key)
          : type === "list"
            ? await client.lrange(key, 0, -1)
            : type === "zset"
              ? await client.zrange(key, 0, -1)
              : await client.get(key);
      const pttl = await client.pttl(key);
      return { key, type, content, ttl: pttl > ttlMs - 1_000 ? "set" : String(pttl) };
    }),
  );
}

type Setup = (resource: string) => Promise<unknown>;
const setups: Record<string, Setup> = {
  "a free resource": async () => undefined,
  "a resource held by another value": (resource) => client.set(resource, OTHER, "PX", 60_000),
  "a resource held by this value (bare token)": (resource) =>
    client.set(resource, TOKEN_VALUE, "PX", 60_000),
  "a resource held by this value (owner in it)": (resource) =>
    client.set(resource, OWNED_VALUE, "PX", 60_000),
  "a foreign type at the resource": (resource) => client.hset(resource, { field: "x" }),
};

/** Runs `run` on a fresh copy of `setup`, returning the reply (or error message) and the state after. */
async function outcome(setup: Setup, run: () => Promise<unknown>, ttlMs: number) {
  await client.flushall();
  await setup("res");
  const reply = await run().then(
    (value) => (Array.isArray(value) ? Number(value[0]) : Number(value)),
    (error: Error) => error.message.replace(/script: \w+/, "script").split(" script")[0],
  );
  return { reply, state: await state(ttlMs) };
}

describe("ACQUIRE_ONE does what ACQUIRE does for one resource", () => {
  for (const [name, setup] of Object.entries(setups))
    for (const value of [OWNED_VALUE, TOKEN_VALUE])
      it(`on ${name}, owner ${value === OWNED_VALUE ? "on" : "off"}`, async () => {
        const ttlMs = 30_000;
        const general = await outcome(
          setup,
          () => ACQUIRE.run(client, ["res"], [value, ttlMs, 1]),
          ttlMs,
        );
        const plainCommand = await outcome(
          setup,
          () => ACQUIRE_ONE.run(client, ["res"], [value, ttlMs]),
          ttlMs,
        );
        const body = await outcome(
          setup,
          () => client.eval(ACQUIRE_ONE.body, 1, "res", value, ttlMs),
          ttlMs,
        );
        expect(plainCommand).toEqual(general);
        expect(body).toEqual(general);
      });
});

it("ACQUIRE_ONE on its own is one SET on the node, no script call", async () => {
  await client.config("RESETSTAT");
  expect(await ACQUIRE_ONE.run(client, ["res"], [OWNED_VALUE, 30_000])).toBe(1);
  expect(await ACQUIRE_ONE.run(client, ["res"], [OWNED_VALUE, 30_000])).toBe(0);
  expect({
    set: await calls("set"),
    evalsha: await calls("evalsha"),
    eval: await calls("eval"),
  }).toEqual({
    set: 2,
    evalsha: 0,
    eval: 0,
  });
});

describe("RELEASE_ONE does what RELEASE does for one resource", () => {
  for (const [name, setup] of Object.entries(setups))
    for (const value of [OWNED_VALUE, TOKEN_VALUE])
      for (const wake of [0, 1] as const)
        it(`on ${name}, owner ${value === OWNED_VALUE ? "on" : "off"}, wake ${wake}`, async () => {
          const keys = wake === 1 ? ["res", waitersKey("res")] : ["res"];
          const subscriber = client.duplicate();
          const messages: string[] = [];
          await subscriber.subscribe("redlock:wake:test");
          subscriber.on("message", (_channel: string, waitId: string) => messages.push(waitId));
          // Two waiters listed: the release hands the resource to the one waiting longest only.
          // One score for both (two Date.now() calls may straddle a millisecond and reorder them).
          const expiresAtMs = Date.now() + 10_000;
          const listWaiters = () =>
            client.zadd(
              waitersKey("res"),
              expiresAtMs,
              '{"id":"later","labels":{},"since":2,"wake":"redlock:wake:test"}',
              expiresAtMs,
              '{"id":"first","labels":{},"since":1,"wake":"redlock:wake:test"}',
            );
          try {
            const general = await outcome(
              setup,
              async () => {
                await listWaiters();
                return RELEASE.run(client, keys, [value, wake, 1, Date.now()]);
              },
              0,
            );
            const single = await outcome(
              setup,
              async () => {
                await listWaiters();
                return RELEASE_ONE.run(client, keys, [value, wake, Date.now()]);
              },
              0,
            );
            expect(single).toEqual(general);
            // Both woke the first waiter, or neither: a PING round trip flushes what was sent.
            await subscriber.ping();
            expect(messages).toEqual(wake === 1 && general.reply === 1 ? ["first", "first"] : []);
          } finally {
            subscriber.disconnect();
            await client.del(waitersKey("res"));
          }
        });
});

describe("WAITERS_REMOVE_ONE does what WAITERS' removal does for one resource", () => {
  const member = '{"id":"w1","labels":{},"since":1}';
  const waiterSetups: Record<string, Setup> = {
    "no waiters set": async () => undefined,
    "the member listed": (resource) =>
      client.zadd(waitersKey(resource), Date.now() + 60_000, member, Date.now() + 60_000, "other"),
    "only another member listed": (resource) =>
      client.zadd(waitersKey(resource), Date.now() + 60_000, "other"),
    "a foreign type at the waiters key": (resource) => client.set(waitersKey(resource), "x"),
  };
  for (const [name, setup] of Object.entries(waiterSetups))
    it(`on ${name}`, async () => {
      const keys = [waitersKey("res")];
      const general = await outcome(setup, () => WAITERS.run(client, keys, ["remove", member]), 0);
      const plainCommand = await outcome(
        setup,
        () => WAITERS_REMOVE_ONE.run(client, keys, [member]),
        0,
      );
      const body = await outcome(
        setup,
        () => client.eval(WAITERS_REMOVE_ONE.body, 1, keys[0]!, member),
        0,
      );
      expect(plainCommand).toEqual(general);
      expect(body).toEqual(general);
    });

  it("on its own is one ZREM on the node, no script call", async () => {
    await client.zadd(waitersKey("res"), Date.now() + 60_000, member);
    await client.config("RESETSTAT");
    expect(await WAITERS_REMOVE_ONE.run(client, [waitersKey("res")], [member])).toBe(1);
    expect({
      zrem: await calls("zrem"),
      evalsha: await calls("evalsha"),
      eval: await calls("eval"),
    }).toEqual({
      zrem: 1,
      evalsha: 0,
      eval: 0,
    });
    expect(await client.exists(waitersKey("res"))).toBe(0);
  });
});

describe("WAITERS' add keeps the set's TTL at its latest expiry", () => {
  const key = waitersKey("res");
  const add = (member: string, expiresAtMs: number, nowMs: number) =>
    WAITERS.run(client, [key], ["add", member, expiresAtMs, nowMs]);

  it("sets it on a new set, lengthens it for a later expiry, never shortens it for an earlier one", async () => {
    const nowMs = Date.now();
    await add("first", nowMs + 20_000, nowMs);
    expect(await client.pttl(key)).toBeGreaterThan(19_000);
    expect(await client.pttl(key)).toBeLessThanOrEqual(20_000);
    await add("later", nowMs + 40_000, nowMs);
    expect(await client.pttl(key)).toBeGreaterThan(39_000);
    await add("earlier", nowMs + 10_000, nowMs);
    expect(await client.pttl(key)).toBeGreaterThan(39_000);
    expect(await client.zrange(key, 0, -1)).toEqual(["earlier", "first", "later"]);
  });

  it("drops members that expired before now", async () => {
    const nowMs = Date.now();
    await client.zadd(key, nowMs - 1, "expired", nowMs + 5_000, "live");
    await add("new", nowMs + 20_000, nowMs);
    expect(await client.zrange(key, 0, -1)).toEqual(["live", "new"]);
    expect(await client.pttl(key)).toBeGreaterThan(19_000);
  });

  it("adds to a listed set with one PEXPIRE (Redis 7: GT) and reads no score", async () => {
    const nowMs = Date.now();
    await add("first", nowMs + 20_000, nowMs);
    await client.config("RESETSTAT");
    await add("second", nowMs + 30_000, nowMs);
    expect({ pexpire: await calls("pexpire"), zrange: await calls("zrange") }).toEqual({
      pexpire: 1,
      zrange: 0,
    });
  });
});
