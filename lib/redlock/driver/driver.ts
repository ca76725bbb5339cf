/**
 * What the library asks of a Redis client, and nothing more: one small adapter per client kind
 * (ioredis, ioredis Cluster, node-redis, node-redis cluster) implements it without casts, so the
 * algorithm never asks which client it has.
 */

/** A key as a command takes it: a string, or a Buffer for binary key names (the console reads any key). */
export type CommandKey = string | Buffer;
export type CommandArg = string | number | Buffer;

/** The connection's state, as the library decides on it whether to send (node.ts). */
export type ConnectionStatus =
  /** Connected and ready. */
  | "ready"
  /** Not ready yet: the client holds a command briefly until the connection opens. */
  | "connecting"
  /** The connection was lost: a command would wait for a reconnection, without bound. */
  | "reconnecting"
  /** The client is being closed: no command should be sent. */
  | "closing"
  /** Closed for good: the client refuses a command at once, with its own error. */
  | "end";

/** A dedicated connection for pub/sub, apart from the one commands go on. */
export interface Subscriber {
  /**
   * SUBSCRIBE to `channel`, resolving once the server confirmed it; `onMessage` then receives each
   * message published there. The client subscribes again on its own after a reconnection.
   */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;
  /** Closes the connection, dropping its subscriptions. */
  close(): void;
}

/** A command to ask each primary of a cluster: its name, then its arguments. */
export type Question = readonly [name: string, ...args: string[]];

/** A Redis Cluster's primaries, as the restart watch asks them (restart-watch.ts). */
export interface ClusterTopology {
  /**
   * Sends each of `commands` to every primary the client knows now. Per primary, the replies as
   * text in order, or null when one failed or the primary did not answer in time.
   */
  askPrimaries(commands: readonly Question[]): Promise<Array<string[] | null>>;
  /**
   * Re-reads the slot map; the `onTopology` listeners run once it is read. Absent when the client
   * learns of a promoted replica only once a command meets MOVED (node-redis): the watch then asks
   * the cluster who its primaries are (CLUSTER NODES) instead.
   */
  refresh?(): void;
  /**
   * `host:port` of the primary serving `key`'s slot as the client's slot map says now (no
   * command), or undefined while it does not know: tells whether a key moved to another primary.
   */
  primaryOf(key: string): string | undefined;
  /** `listener` runs whenever the client learned the topology anew. */
  onTopology(listener: () => void): void;
  /** `listener` runs whenever the connection to one server of the cluster is lost. */
  onServerLost(listener: () => void): void;
}

/**
 * A Redis master (a single server, or a cluster routing each key to its shard) as the library
 * drives it. A command Redis refuses rejects with an Error named "ReplyError" (ioredis's name) that
 * carries Redis's message, whatever the client.
 */
export interface RedisDriver {
  /** Which client this drives. */
  readonly kind: "ioredis" | "ioredis-cluster" | "node-redis" | "node-redis-cluster";
  /**
   * `host:port` (or socket path) of the server; for a cluster, "cluster" and its first seed where
   * the client tells it (node-redis does, ioredis's Cluster does not: "cluster"). Never a password.
   */
  readonly address: string;
  readonly status: ConnectionStatus;
  /**
   * Whether node.ts may carry several operations in one call of its batch script: only when one
   * server sits behind one connection (a cluster's keys go to different shards) and the client
   * does not already write the commands of one event-loop turn together (node-redis does).
   */
  readonly batches: boolean;
  /** Set on a cluster: each key goes to the shard owning its slot. */
  readonly cluster?: ClusterTopology;
  /** EVALSHA; a cluster routes it by its first key (the keys of one call share a slot). */
  evalsha(sha: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown>;
  /** EVAL, routed as EVALSHA. */
  eval(body: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown>;
  /**
   * One plain command whose first argument is its only key (script.ts PlainCommand). `args` is
   * the driver's to keep (ioredis prefixes its key in place), so it is not copied.
   */
  command(name: string, args: CommandArg[]): Promise<unknown>;
  /** INFO `section` of the server (one server of a cluster). */
  info(section: string): Promise<string>;
  /** "ready": the connection became ready; "close": it was lost (it may come back). */
  on(event: "ready" | "close", listener: () => void): void;
  /** A new connection for pub/sub (see each adapter for which server of a cluster it reaches). */
  subscriber(): Promise<Subscriber>;
  /**
   * CLIENT ID of the connection commands on `key` go through: the one connection of a single
   * server (`key` changes nothing), or, on a cluster, the connection to the primary owning the
   * key's slot (one per primary).
   */
  clientId(key: string): Promise<number>;
}
