import "server-only";
/**
 * One ioredis client per configured node, for the life of the console. Every command is bounded by
 * the node timeout (commandTimeout), so a hung node costs a request at most that long.
 * A node may be a Redis Cluster (`?cluster=true` on its URL): its client is then an ioredis Cluster,
 * which routes every keyed command to the shard owning the key's slot, and the node can connect to
 * each of its servers on its own (the live index watches every primary).
 * Addresses shown or logged never carry the URL's password.
 */
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { quorumSize } from "@redlock-console/redlock";
import { isClusterUrl, type ConsoleConfig } from "./config";
import { logger, redactText, redactUrl } from "./logger";

interface NodeBase {
  /** "node-1" … "node-N", in REDLOCK_NODES order. */
  readonly id: string;
  readonly index: number;
  /** host:port (a cluster: its seed's), no credentials. */
  readonly address: string;
  readonly tls: boolean;
}

/** A single Redis server. */
export interface SingleNode extends NodeBase {
  readonly kind: "single";
  readonly client: Redis;
}

/** A Redis Cluster used as one lock node: one vote, whatever its number of shards. */
export interface ClusterNode extends NodeBase {
  readonly kind: "cluster";
  /** Routes each keyed command by slot, follows MOVED/ASK and refreshes its slot map. */
  readonly client: Cluster;
  /** A plain connection to one server of the cluster, with the node's credentials and TLS. */
  connectServer(host: string, port: number): Redis;
}

export type ConsoleNode = SingleNode | ClusterNode;

export interface NodeRegistry {
  readonly nodes: readonly ConsoleNode[];
  /** Votes a lock needs: floor(N/2)+1. */
  readonly quorumSize: number;
  close(): Promise<void>;
}

/** Reconnect quickly at first, then every 2 s: a node that comes back is used again within seconds. */
const retryStrategy = (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2_000);

/** How often a cluster node's client rereads the slot map by itself: failovers and resharding are followed. */
const CLUSTER_SLOTS_REFRESH_MS = 5_000;

function clientOptions(config: ConsoleConfig): RedisOptions {
  return {
    connectTimeout: Math.max(config.nodeTimeoutMs, 1_000),
    commandTimeout: config.nodeTimeoutMs,
    // Fail fast while disconnected instead of retrying behind the caller's back; commandTimeout bounds the rest.
    maxRetriesPerRequest: 0,
    enableAutoPipelining: false,
    connectionName: "redlock-console",
  };
}

/** Logs a node's errors once per change (a down node reports the same one on every reconnect). */
function logErrors(client: Redis | Cluster, address: string): void {
  let lastError = "";
  client.on("error", (error: Error) => {
    const message = redactText(error.message);
    if (message !== lastError) logger.warn({ node: address, error: message }, "redis node error");
    lastError = message;
  });
  client.on("ready", () => {
    if (lastError) logger.info({ node: address }, "redis node reconnected");
    lastError = "";
  });
}

function createClient(url: string, address: string, config: ConsoleConfig): Redis {
  const client = new Redis(url, { ...clientOptions(config), retryStrategy, lazyConnect: false });
  logErrors(client, address);
  return client;
}

function createClusterNode(base: NodeBase, url: string, config: ConsoleConfig): ClusterNode {
  const parsed = new URL(url);
  const decode = (text: string) => (text === "" ? undefined : decodeURIComponent(text));
  const serverOptions: RedisOptions = {
    ...clientOptions(config),
    username: decode(parsed.username),
    password: decode(parsed.password),
    ...(base.tls ? { tls: {} } : {}),
  };
  const seed = { host: parsed.hostname, port: Number(parsed.port || 6379) };
  const client = new Cluster([seed], {
    redisOptions: serverOptions,
    clusterRetryStrategy: retryStrategy,
    slotsRefreshInterval: CLUSTER_SLOTS_REFRESH_MS,
    slotsRefreshTimeout: Math.max(config.nodeTimeoutMs, 1_000),
    enableOfflineQueue: true,
    enableAutoPipelining: false,
  });
  logErrors(client, base.address);
  return {
    ...base,
    kind: "cluster",
    client,
    connectServer: (host, port) => {
      const server = new Redis({ ...serverOptions, host, port, retryStrategy, lazyConnect: false });
      logErrors(server, `${host}:${port}`);
      return server;
    },
  };
}

export function createNodeRegistry(config: ConsoleConfig): NodeRegistry {
  const nodes = config.nodeUrls.map((url, index): ConsoleNode => {
    const base: NodeBase = {
      id: `node-${index + 1}`,
      index,
      address: redactUrl(url),
      tls: url.startsWith("rediss:"),
    };
    return isClusterUrl(url)
      ? createClusterNode(base, url, config)
      : { ...base, kind: "single", client: createClient(url, base.address, config) };
  });
  return {
    nodes,
    quorumSize: quorumSize(nodes.length),
    close: async () => {
      await Promise.all(
        nodes.map((node) => node.client.quit().catch(() => node.client.disconnect())),
      );
    },
  };
}

/** Runs `task` with a hard deadline: a node that never answers yields `undefined` on time. */
export async function withDeadline<T>(task: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    return await Promise.race([task, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
