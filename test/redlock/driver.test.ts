/**
 * The drivers (lib/redlock/driver) on real servers, for a single server and a 3-primary cluster:
 * subscriber() receives what is published on its channel, on a cluster from whichever shard
 * published it, and clientId() names the connection that carries a key's commands (on a cluster,
 * one per primary). The "ioredis" project drives ioredis's Redis and Cluster, the "node-redis"
 * project node-redis's client and cluster.
 */
import { randomUUID } from "node:crypto";
import { Cluster as IoCluster, Redis } from "ioredis";
import { createClient, createCluster } from "redis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { clusterSlot } from "../../lib/redlock/keys";
import { driverFor, type Client, type RedisDriver } from "../../lib/redlock/driver";
import { ownerOfSlot, useClusters } from "../cluster";
import { clientKind } from "../lock-clients";
import { disconnect, usePrivateMasters } from "../masters";

const { masters } = usePrivateMasters(1);
const clusters = useClusters([{ primaries: 3 }]);
const closers: Array<() => unknown> = [];
/** Plain connections to the single server and to each cluster node, by port. */
const servers = new Map<number, Redis>();
let single: RedisDriver;
let cluster: RedisDriver;

async function clients(): Promise<[Client, Client]> {
  const { port } = masters().masters[0]!;
  const seeds = clusters()[0]!.seeds;
  if (clientKind() === "ioredis") {
    const server = new Redis({ port, host: "127.0.0.1" });
    const shards = new IoCluster([...seeds]);
    closers.push(
      () => disconnect([server]),
      () => shards.disconnect(),
    );
    return [server, shards];
  }
  const server = createClient({ socket: { host: "127.0.0.1", port } });
  const shards = createCluster({ rootNodes: seeds.map((socket) => ({ socket })) });
  await Promise.all([server.connect(), shards.connect()]);
  closers.push(
    () => server.destroy(),
    () => shards.destroy(),
  );
  return [server, shards as unknown as Client];
}

beforeAll(async () => {
  for (const port of [masters().masters[0]!.port, ...clusters()[0]!.ports])
    servers.set(port, new Redis({ port, host: "127.0.0.1" }));
  const [server, shards] = await clients();
  [single, cluster] = [driverFor(server), driverFor(shards)];
}, 30_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await disconnect([...servers.values()]);
});

const server = (port: number) => servers.get(port)!;
const singleServer = () => server(masters().masters[0]!.port);
const primaryPorts = () => clusters()[0]!.primaryPorts;

/** A key on each primary of the cluster, with that primary's port. */
async function keyOnEachPrimary(): Promise<Array<{ key: string; port: number }>> {
  const found = new Map<number, string>();
  for (let index = 0; found.size < primaryPorts().length; index += 1) {
    const key = `driver:${index}`;
    const { port } = await ownerOfSlot(server(primaryPorts()[0]!), clusterSlot(key));
    if (!found.has(port)) found.set(port, key);
  }
  return [...found].map(([port, key]) => ({ key, port }));
}

describe(`${clientKind()} drivers`, () => {
  it("subscriber() receives what is published on its channel, until closed", async () => {
    const channel = `driver:${randomUUID()}`;
    const received: string[] = [];
    const subscriber = await single.subscriber();
    await subscriber.subscribe(channel, (message) => received.push(message));
    expect(await singleServer().publish(channel, "hello")).toBe(1);
    await vi.waitFor(() => expect(received).toEqual(["hello"]));
    subscriber.close();
    await vi.waitFor(async () => expect(await singleServer().publish(channel, "gone")).toBe(0));
  });

  it("on a cluster, subscriber() receives what any primary publishes", async () => {
    const channel = `driver:${randomUUID()}`;
    const received: string[] = [];
    const subscriber = await cluster.subscriber();
    await subscriber.subscribe(channel, (message) => received.push(message));
    for (const port of primaryPorts()) await server(port).publish(channel, String(port));
    await vi.waitFor(() => expect(received.sort()).toEqual(primaryPorts().map(String).sort()));
    subscriber.close();
  });

  it("clientId() names the connection the driver's commands go on", async () => {
    const id = await single.clientId("any");
    await single.eval("return 1", ["any"], []);
    const listed = String(await singleServer().client("LIST", "ID", id));
    expect(listed).toMatch(new RegExp(`^id=${id} .*cmd=eval`));
  });

  it("on a cluster, clientId() names the connection to the primary owning the key, one per primary", async () => {
    for (const { key, port } of await keyOnEachPrimary()) {
      const id = await cluster.clientId(key);
      await cluster.eval("return 1", [key], []);
      const listed = String(await server(port).client("LIST", "ID", id));
      expect(listed).toMatch(new RegExp(`^id=${id} .*cmd=eval`));
    }
  });
});
