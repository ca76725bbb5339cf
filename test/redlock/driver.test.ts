/**
 * The drivers (lib/redlock/driver) on real servers, for a single server and a 3-primary cluster:
 * subscriber() receives what is published on its channel, on a cluster from whichever shard
 * published it, and clientId() names the connection that carries a key's commands (on a cluster,
 * one per primary). The "ioredis" project drives ioredis's Redis and Cluster, the "node-redis"
 * project node-redis's client and cluster.
 *
 * One contract case per member of RedisDriver ("the contract" below): the algorithm's own tests
 * run with ioredis only on CI (vitest.config.ts), so what the other client kind must do is pinned
 * here, member by member, on both kinds.
 */
import { createHash, randomUUID } from "node:crypto";
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
  // A dropped connection is the contract's case below: the driver reports it, the test goes on.
  for (const client of [server, shards]) client.on("error", () => undefined);
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

describe(`${clientKind()} drivers: the contract, one case per member`, () => {
  const kinds = () =>
    clientKind() === "ioredis"
      ? ["ioredis", "ioredis-cluster"]
      : ["node-redis", "node-redis-cluster"];

  it("kind names the client, address its first server (host:port, no password), batches only for one ioredis connection", () => {
    expect([single.kind, cluster.kind]).toEqual(kinds());
    expect(single.address).toBe(`127.0.0.1:${masters().masters[0]!.port}`);
    const [seed] = clusters()[0]!.seeds;
    expect(cluster.address).toBe(
      clientKind() === "ioredis" ? "cluster" : `cluster ${seed!.host}:${seed!.port}`,
    );
    expect([single.batches, cluster.batches]).toEqual([clientKind() === "ioredis", false]);
  });

  it("status is ready once connected", () => {
    expect([single.status, cluster.status]).toEqual(["ready", "ready"]);
  });

  it("evalsha runs a loaded script with its keys and arguments; an unknown sha rejects as a ReplyError saying NOSCRIPT", async () => {
    const body = "return {KEYS[1], ARGV[1], ARGV[2]}";
    const sha = createHash("sha1").update(body).digest("hex");
    const key = `driver:${randomUUID()}`;
    for (const driver of [single, cluster]) {
      await driver.eval(body, [key], ["a", 1]);
      expect(await driver.evalsha(sha, [key], ["b", 2])).toEqual([key, "b", "2"]);
      const unknown = driver.evalsha("0".repeat(40), [key], []);
      await expect(unknown).rejects.toMatchObject({ name: "ReplyError" });
      await expect(unknown).rejects.toThrow(/NOSCRIPT/);
    }
  });

  it("eval takes Buffer keys and arguments byte for byte; a script error rejects as a ReplyError with Redis's message", async () => {
    const key = Buffer.from([0x64, 0x3a, 0xff, 0x00, 0x80]);
    for (const driver of [single, cluster]) {
      expect(
        await driver.eval(
          "return redis.call('SET', KEYS[1], ARGV[1], 'PX', 5000)",
          [key],
          [Buffer.from([0xfe, 0x01])],
        ),
      ).toBe("OK");
      expect(await driver.eval("return string.len(redis.call('GET', KEYS[1]))", [key], [])).toBe(2);
      const failing = driver.eval("return redis.call('INCR', KEYS[1])", [key], []);
      await expect(failing).rejects.toMatchObject({ name: "ReplyError" });
      await expect(failing).rejects.toThrow(/not an integer/);
      await driver.eval("return redis.call('DEL', KEYS[1])", [key], []);
    }
  });

  it("command sends one plain command by its key, to the key's shard on a cluster", async () => {
    for (const { key, port } of await keyOnEachPrimary()) {
      expect(await cluster.command("SET", [key, "v", "PX", 5_000])).toBe("OK");
      expect(await server(port).get(key)).toBe("v");
      expect(Number(await cluster.command("PTTL", [key]))).toBeGreaterThan(0);
    }
    const key = `driver:${randomUUID()}`;
    expect(await single.command("SET", [key, "w", "PX", 5_000])).toBe("OK");
    expect(await singleServer().get(key)).toBe("w");
  });

  it("info(section) returns the server's INFO text of that section", async () => {
    for (const driver of [single, cluster]) {
      const text = await driver.info("server");
      expect(text).toMatch(/^# Server/m);
      expect(text).toMatch(/^redis_version:/m);
      expect(text).not.toMatch(/^# Clients/m);
    }
  });

  it('on("close") runs when the server drops the connection, on("ready") once it is back', async () => {
    const closed = vi.fn();
    const ready = vi.fn();
    single.on("close", closed);
    single.on("ready", ready);
    const id = await single.clientId("any");
    await singleServer().client("KILL", "ID", String(id));
    await vi.waitFor(() => expect(closed).toHaveBeenCalled());
    await vi.waitFor(() => expect(ready).toHaveBeenCalled());
    await vi.waitFor(() => expect(single.status).toBe("ready"));
    expect(await single.eval("return 1", ["any"], [])).toBe(1);
  });

  it("cluster topology: primaryOf names the key's primary, askPrimaries asks each primary in order", async () => {
    const topology = cluster.cluster!;
    expect(single.cluster).toBeUndefined();
    for (const { key, port } of await keyOnEachPrimary())
      expect(topology.primaryOf(key)).toMatch(new RegExp(`:${port}$`));
    const replies = await topology.askPrimaries([["PING"], ["ECHO", "x"]]);
    expect(replies).toHaveLength(primaryPorts().length);
    for (const reply of replies) expect(reply).toEqual(["PONG", "x"]);
  });
});
