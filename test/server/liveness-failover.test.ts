/**
 * A failover of the shard holding a session key proves nothing (issue 39): the heartbeat replicated
 * to the promoted primary names a CLIENT ID of the old one, so "closed" is read there whatever the
 * holder does. On a real 3-shard cluster with one replica per shard (CLUSTER FAILOVER on the
 * replica), used as one lock node: a heartbeat written before the failover never reads gone; one
 * written on the promoted primary afterwards, by a connection that then closes, does. The cluster
 * started seconds ago: the uptime is stubbed (node-uptime.ts), everything else is read from the
 * servers.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { clusterSlot } from "@redlock-console/redlock";
import type { HolderSessionState } from "@/lib/api";
import { readLiveness } from "@/lib/server/sessions/read-session";
import { ownerOfSlot, startCluster, type Cluster } from "../cluster";
import { sleep } from "../masters";
import { FakeHolderSession } from "./fixtures/holder-session";
import { startTestConsole, type TestConsole } from "./helpers";

vi.mock("@/lib/server/sessions/node-uptime", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/server/sessions/node-uptime")>()),
  readUptimeS: async () => 3_600,
}));

/** Late for the fake session's 1 s heartbeat (LATE_AFTER 3 s). */
const LATE_AGE_MS = 3_500;

let cluster: Cluster;
let tc: TestConsole;
const sessions: FakeHolderSession[] = [];
const opened: Redis[] = [];

beforeAll(async () => {
  cluster = await startCluster(3, 1);
  tc = startTestConsole([`redis://127.0.0.1:${cluster.primaryPorts[0]}?cluster=true`]);
  await tc.ready();
  await sleep(1_500);
}, 60_000);

afterAll(async () => {
  for (const session of sessions) session.close();
  for (const connection of opened) connection.disconnect();
  await tc?.close();
  await cluster?.stop();
});

const liveness = async (id: string): Promise<HolderSessionState> =>
  (await readLiveness(tc.ctx.registry.nodes, id, tc.ctx.nodeDeadlineMs)).state;
const connectTo = (port: number) => {
  const connection = new Redis({ host: "127.0.0.1", port });
  opened.push(connection);
  return connection;
};

/** The replica of the primary on `primaryPort`, by CLUSTER NODES. */
async function replicaOf(primaryId: string): Promise<number> {
  const lines = String(await connectTo(cluster.primaryPorts[0]!).cluster("NODES")).split("\n");
  const line = lines.find((candidate) => candidate.split(" ")[3] === primaryId)!;
  return Number(/:(\d+)@/.exec(line)![1]);
}

/** Opens many connections to `port` and closes them: its next CLIENT IDs are past any other node's. */
async function advanceClientIds(port: number, count: number): Promise<void> {
  const connections = Array.from({ length: count }, () => new Redis({ host: "127.0.0.1", port }));
  await Promise.all(connections.map((connection) => connection.ping()));
  for (const connection of connections) connection.disconnect();
}

describe("a failover of the session key's shard", () => {
  it("a heartbeat written before the failover never reads gone on the promoted primary; one written after it can", async () => {
    const seed = connectTo(cluster.primaryPorts[0]!);
    const probe = await FakeHolderSession.open([{ clusterSeed: cluster.seeds[0]! }]);
    probe.close();
    const primary = await ownerOfSlot(seed, clusterSlot(probe.key));
    // So that the heartbeat's CLIENT ID is no connection of the replica's: "closed" there.
    await advanceClientIds(primary.port, 300);
    let session: FakeHolderSession;
    do {
      session = await FakeHolderSession.open([{ clusterSeed: cluster.seeds[0]! }]);
      sessions.push(session);
    } while ((await ownerOfSlot(seed, clusterSlot(session.key))).port !== primary.port);
    await session.heartbeat();
    expect(await liveness(session.id)).toBe("alive");
    const replicaPort = await replicaOf(primary.id);
    const replica = connectTo(replicaPort);
    await connectTo(primary.port).wait(1, 1_000);
    await replica.cluster("FAILOVER");
    await vi.waitFor(
      async () =>
        expect((await ownerOfSlot(seed, clusterSlot(session.key))).port).toBe(replicaPort),
      { timeout: 20_000, interval: 100 },
    );
    const states = new Set<HolderSessionState>();
    const until = Date.now() + LATE_AGE_MS + 3_000;
    while (Date.now() < until) {
      states.add(await liveness(session.id));
      await sleep(50);
    }
    // The replicated heartbeat is there, late, and its connection is unknown to the new primary.
    expect(await replica.get(session.key)).not.toBeNull();
    expect(
      String(await replica.client("LIST", "ID", String(await clientIdOf(replica, session.key)))),
    ).toBe("");
    expect(states).not.toContain("gone");
    expect(states).toContain("unresponsive");

    // A heartbeat the holder writes on the promoted primary after the failover (which the
    // console has watched for longer than LATE_AGE_MS by now) proves again.
    let after: FakeHolderSession;
    do {
      after = await FakeHolderSession.open([{ clusterSeed: cluster.seeds[0]! }]);
      sessions.push(after);
    } while ((await ownerOfSlot(seed, clusterSlot(after.key))).port !== replicaPort);
    await after.heartbeat(LATE_AGE_MS);
    after.close();
    await expect.poll(async () => liveness(after.id)).toBe("gone");
  }, 60_000);
});

async function clientIdOf(server: Redis, key: string): Promise<number> {
  return (JSON.parse((await server.get(key))!) as { clientId: number }).clientId;
}
