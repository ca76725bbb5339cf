/**
 * Test helpers: ioredis clients for a set of independent masters (not a Redis Cluster), and a private set of masters for tests that
 * inject faults (so pausing a node never disturbs another test file).
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, inject } from "vitest";
import { waitersKey } from "@redlock-console/redlock";
import { callsPerCommand } from "@/scripts/command-stats";
import { startMasters, type Masters } from "@/scripts/redis-masters";

/**
 * One private master and one client to it, for a test that flushes or counts what runs there;
 * call the returned function inside tests (the client exists from beforeAll on).
 */
export function usePrivateClient(): () => Redis {
  const { masters } = usePrivateMasters(1);
  let client: Redis | undefined;
  beforeAll(() => {
    [client] = connect(masters().urls) as [Redis];
  });
  afterAll(async () => {
    if (client) await disconnect([client]);
  });
  return () => {
    if (!client) throw new Error("private client not connected");
    return client;
  };
}

export function connect(urls: string[]): Redis[] {
  // maxRetriesPerRequest: null lets a paused node's commands wait; the library's own nodeTimeout bounds them.
  return urls.map((url) => new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false }));
}

export function sharedUrls(): string[] {
  return inject("redisUrls");
}

/** Starts `count` private masters before the file's tests and stops them after. */
export function usePrivateMasters(count = 5): { masters: () => Masters } {
  let masters: Masters | undefined;
  beforeAll(async () => {
    masters = await startMasters({ count, dataDir: `.data/test-private/${process.pid}` });
  });
  afterAll(async () => {
    await masters?.stop();
  });
  return {
    masters: () => {
      if (!masters) throw new Error("private masters not started");
      return masters;
    },
  };
}

export async function disconnect(clients: Redis[]): Promise<void> {
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Indexes (ascending) of the nodes that list and wake waits while all are up: the first majority
 * of `clients` in address order (lib/redlock/handoff.ts, wakeNodes).
 */
export function wakeIndexes(clients: readonly Redis[]): number[] {
  const addressOf = ({ options }: Redis) => `${options.host}:${options.port}`;
  return clients
    .map((client, index) => ({ address: addressOf(client), index }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
    .slice(0, Math.floor(clients.length / 2) + 1)
    .map(({ index }) => index)
    .sort((a, b) => a - b);
}

/**
 * How many of `clients` list a wait on `resource` with its wake channel. Until a wait's
 * subscriptions are confirmed it is listed without one, and a node that lists it so publishes no
 * wake (lib/redlock/waiters.ts): a test that counts wakes waits for this first.
 */
export async function listedWithWake(clients: readonly Redis[], resource: string): Promise<number> {
  const listed = await Promise.all(
    clients.map((client) => client.zrange(waitersKey(resource), 0, -1)),
  );
  return listed.filter((members) => members.some((member) => member.includes('"wake"'))).length;
}

/** Calls of an acquire attempt on one resource (a plain SET NX, or a script) on `node`. */
export async function attemptCalls(node: Redis): Promise<number> {
  const calls = await callsPerCommand([node]);
  return (calls.set ?? 0) + (calls.evalsha ?? 0) + (calls.eval ?? 0);
}

/** Calls of `command` on a server since its last CONFIG RESETSTAT, read from INFO commandstats. */
export async function commandCalls(client: Redis, command: string): Promise<number> {
  return (await callsPerCommand([client]))[command] ?? 0;
}
