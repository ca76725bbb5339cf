import "server-only";
/**
 * The node's two connections as the watch's parts use them, each typed by the commands it sends:
 * ioredis in the console (one adapter, connectionsOf), small scripted fakes in the unit tests.
 */
import type { EventEmitter } from "node:events";
import type { Redis } from "ioredis";
import { readLockKeys, type KeysRead } from "../../read/read-node";

/** What a listing sends: INFO and DBSIZE once, then a paced SCAN. */
export interface ListerClient {
  info(section: "server" | "commandstats"): Promise<string>;
  dbsize(): Promise<number>;
  scanBuffer(
    cursor: string,
    matchToken: "MATCH",
    pattern: string,
    countToken: "COUNT",
    count: number,
  ): Promise<[cursor: Buffer, keys: Buffer[]]>;
}

/** CONFIG GET / SET notify-keyspace-events. */
export interface ConfigClient {
  config(subcommand: "GET", parameter: string): Promise<unknown>;
  config(subcommand: "SET", parameter: string, value: string): Promise<unknown>;
}

/** The liveness probe's PING. */
export interface PingClient {
  ping(): Promise<unknown>;
}

/** The node's command connection; "ready" and "close" tell when it opens and drops. */
export interface CommandConnection extends ListerClient, ConfigClient, PingClient, EventEmitter {
  readonly status: string;
}

/** The dedicated subscriber connection; it emits "ready", "close" and "pmessageBuffer". */
export interface SubscriberConnection extends PingClient, EventEmitter {
  readonly status: string;
  connect(): Promise<void>;
  psubscribe(...patterns: string[]): Promise<unknown>;
  punsubscribe(): Promise<unknown>;
  disconnect(): void;
}

export interface NodeConnections {
  readonly commands: CommandConnection;
  readonly subscriber: SubscriberConnection;
  /** The logical database the lock keys live in (its keyspace channels carry its number). */
  readonly db: number;
  /**
   * What the first of `keys` hold, read at `nowMs` over the command connection in one script call
   * that stops once `allowanceBytes` of values are read (at least one key is read).
   */
  readKeys(keys: readonly Buffer[], nowMs: number, allowanceBytes: number): Promise<KeysRead>;
}

/** A single node, or one primary of a cluster node, reached with ioredis. */
export interface RedisServer {
  /** host:port, no credentials (for logs). */
  readonly address: string;
  readonly client: Redis;
  /** A primary of a Redis Cluster: its keys span slots (read-node.ts reads them accordingly). */
  readonly inCluster?: boolean;
}

/** The server a watch follows: reached with ioredis, or (tests) through connections made already. */
export type WatchedServer =
  RedisServer | { readonly address: string; readonly connections: NodeConnections };

export function connectionsOf(server: WatchedServer): NodeConnections {
  if ("connections" in server) return server.connections;
  const { client, inCluster } = server;
  const subscriber = client.duplicate({
    connectionName: "redlock-console:watch",
    // Subscriptions are remade by hand on every connect, then the node is relisted: no blind spot.
    autoResubscribe: false,
    commandTimeout: undefined,
    lazyConnect: true,
    // Back at once after a drop (CLIENT KILL, an output buffer over its limit): every ms away is a
    // ms whose notifications are lost and must be found by the relist. Then the client's backoff.
    retryStrategy: (times) => (times === 1 ? 0 : client.options.retryStrategy?.(times - 1)),
  });
  subscriber.on("error", () => {}); // the command connection logs the node's errors
  return {
    commands: client,
    subscriber,
    db: client.options.db ?? 0,
    readKeys: (keys, nowMs, allowanceBytes) =>
      readLockKeys(client, keys, nowMs, inCluster, allowanceBytes),
  };
}
