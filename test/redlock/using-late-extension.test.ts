/**
 * `using` must stop extending once its routine has settled, even when an extension was already in
 * flight at that moment: otherwise the timer it re-arms keeps extending (or trying to) a lock
 * nobody uses any more. Private masters: the test pauses every node's clients.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Redlock, { type Client, type OperationEvent } from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../cluster";
import { lockClients } from "../lock-clients";

const cluster = usePrivateMasters(3);
let clients: Redis[];
let lockers: Client[];
let admins: Redis[];

beforeAll(async () => {
  clients = connect(cluster.masters().urls);
  lockers = await lockClients(clients);
  admins = connect(cluster.masters().urls);
});
afterAll(async () => {
  await disconnect(clients);
  await disconnect(admins);
});

describe("using, when the routine ends during an extension", () => {
  it("does not re-arm the extension timer after the routine settled", async () => {
    const redlock = new Redlock(lockers, { retryCount: 0, automaticExtensionThreshold: 200 });
    const extensions: OperationEvent[] = [];
    redlock.on("operation", (event: OperationEvent) => {
      if (event.operation === "extend") extensions.push(event);
    });
    const resource = `test:using-late:${randomUUID()}`;
    // TTL 400 ms, threshold 200 ms: the extension goes out ~195 ms after the acquire.
    await redlock.using([resource], 400, async () => {
      await sleep(150);
      // Holds the extension (and the release after it) on every node until ~350 ms.
      await Promise.all(admins.map((admin) => admin.call("CLIENT", "PAUSE", "200", "ALL")));
      await sleep(100); // returns while the extension is in flight
    });
    await sleep(600); // a re-armed timer would fire ~40 ms after the late extension lands
    expect(extensions.map((event) => event.outcome)).toEqual(["success"]);
    for (const client of clients) expect(await client.exists(resource)).toBe(0);
  });
});
