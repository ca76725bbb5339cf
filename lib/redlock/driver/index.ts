import type { Cluster, Redis } from "ioredis";
import type { RedisDriver } from "./driver";
import { IoredisDriver } from "./ioredis";
import { IoredisClusterDriver } from "./ioredis-cluster";
import { NodeRedisDriver, type NodeRedisClient } from "./node-redis";
import { NodeRedisClusterDriver, type NodeRedisClusterClient } from "./node-redis-cluster";

export type {
  ClusterTopology,
  CommandArg,
  CommandKey,
  ConnectionStatus,
  Question,
  RedisDriver,
  Subscriber,
} from "./driver";
export type { NodeRedisClient } from "./node-redis";
export type { NodeRedisClusterClient } from "./node-redis-cluster";

/** An ioredis client or cluster. */
export type IoredisClient = Redis | Cluster;

/** A Redis master as the library accepts it: an ioredis client or cluster, or a node-redis client or cluster. */
export type Client = IoredisClient | NodeRedisClient | NodeRedisClusterClient;

/**
 * Which client this is, without importing either library (an application has one or the other):
 * node-redis names its script command `evalSha`, ioredis `evalsha`; only a cluster lists `masters`.
 */
function driverOf(client: Client): RedisDriver {
  if (!("evalsha" in client))
    return "masters" in client ? new NodeRedisClusterDriver(client) : new NodeRedisDriver(client);
  return isCluster(client) ? new IoredisClusterDriver(client) : new IoredisDriver(client);
}

const isCluster = (client: IoredisClient): client is Cluster => client.isCluster;

/** One driver per client, however many Redlock instances and scripts use it: drivers keep no state. */
const drivers = new WeakMap<Client, RedisDriver>();

/** The driver of `client`. */
export function driverFor(client: Client): RedisDriver {
  let driver = drivers.get(client);
  if (!driver) drivers.set(client, (driver = driverOf(client)));
  return driver;
}
