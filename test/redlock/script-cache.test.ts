import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, { type ExecutionStats } from "@redlock-console/redlock";
import { lockClients } from "../lock-clients";
import { connect, disconnect, usePrivateMasters } from "../masters";

// Empties the script caches of its nodes, so it uses masters of its own.
const { masters } = usePrivateMasters(5);
let admins: Redis[];

beforeAll(() => {
  admins = connect(masters().urls);
});
afterAll(() => disconnect(admins));

const refusals = (stats: ExecutionStats[]) =>
  stats.flatMap((attempt) => [...attempt.votesAgainst.values()].map((error) => error.message));

describe("scripts on a node with an empty script cache (as after a restart)", () => {
  // A release resolves at a majority, so the next acquire is sent while the slower nodes still
  // have the release in flight. Were the first EVALSHA of each script to fail with NOSCRIPT and be
  // retried as EVAL, the retry would leave the connection's order: the next acquire would run
  // before the release it follows and be refused, or a release before its acquire, leaving a key
  // behind until its TTL. Each script goes once as EVAL on a new connection instead.
  it("keeps every node's commands in order from the first call on", async () => {
    const ioredisClients = connect(masters().urls);
    try {
      // Connected and ready (restart check done) before the first lock call, as in a running service.
      await Promise.all(ioredisClients.map((client) => client.script("FLUSH")));
      const redlock = new Redlock(await lockClients(ioredisClients), { retryCount: 0 });
      const attempts: Promise<ExecutionStats>[] = [];
      for (let index = 0; index < 200; index += 1) {
        const lock = await redlock.acquire(["script-cache:sequential"], 10_000);
        const released = await lock.release();
        attempts.push(lock.attempts[0]!, released.attempts[0]!);
      }
      expect(refusals(await Promise.all(attempts))).toEqual([]);
      expect(
        await Promise.all(admins.map((admin) => admin.exists("script-cache:sequential"))),
      ).toEqual([0, 0, 0, 0, 0]);
    } finally {
      await disconnect(ioredisClients);
    }
  });

  it("keeps one record of sent scripts per client, whatever the number of Redlock instances on it", async () => {
    const ioredisClients = connect(masters().urls);
    try {
      const lockers = await lockClients(ioredisClients);
      // ioredis says "close"; the node-redis driver listens to "end" (and "reconnecting").
      const event = lockers[0] === ioredisClients[0] ? "close" : "end";
      const emitter = lockers[0] as unknown as { listenerCount(name: string): number };
      const closeListeners = () => emitter.listenerCount(event);
      const before = closeListeners();
      new Redlock(lockers, { restartQuarantine: false });
      const once = closeListeners();
      for (let index = 0; index < 20; index += 1)
        new Redlock(lockers, { restartQuarantine: false });
      expect(once).toBe(before + 1);
      expect(closeListeners()).toBe(once);
    } finally {
      await disconnect(ioredisClients);
    }
  });
});
