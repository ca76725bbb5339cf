/**
 * quit() after release(): a release resolves once a majority answered, so its commands to the
 * other nodes may still wait in the library's batch for the end of the event-loop turn. Before
 * this test, quit() wrote QUIT ahead of them and the lock stayed on those nodes until its TTL
 * (measured: 32 of 60 rounds left all 8 keys on one or two nodes).
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";

let readers: Redis[];

beforeAll(() => {
  readers = connect(sharedUrls());
});
afterAll(() => disconnect(readers));

describe("quit()", () => {
  it("right after release() of 8 concurrent locks leaves none of their keys on any node, 30 rounds in a row", async () => {
    for (let round = 0; round < 30; round += 1) {
      // Connections of its own, as a process that releases and exits has.
      const redlock = new Redlock(connect(sharedUrls()), { retryCount: 0 });
      const resources = Array.from({ length: 8 }, () => `test:quit:${randomUUID()}`);
      const locks = await Promise.all(
        resources.map((resource) => redlock.acquire([resource], 30_000)),
      );
      await Promise.all(locks.map((lock) => lock.release()));
      await redlock.quit();
      const left = await Promise.all(readers.map((reader) => reader.exists(...resources)));
      expect({ round, left }).toEqual({ round, left: [0, 0, 0, 0, 0] });
    }
  });
});
