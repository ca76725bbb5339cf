import type { Cluster, Redis } from "ioredis";

/**
 * The node-redis (`redis` v4 or v5) client methods this library uses. Commands go through
 * `sendCommand`, which both major versions share, so no version-specific command helper is needed.
 */
export interface NodeRedisClient {
  sendCommand(args: ReadonlyArray<string>): Promise<unknown>;
  readonly isReady: boolean;
  readonly isOpen: boolean;
  on(event: string, listener: () => void): unknown;
  quit(): Promise<unknown>;
  readonly options?: { readonly url?: string; readonly socket?: object };
}

/**
 * The node-redis cluster (`createCluster`) methods this library uses: `sendCommand` routes each
 * command by its first key to the shard that owns the key's slot.
 */
export interface NodeRedisClusterClient {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: ReadonlyArray<string>,
  ): Promise<unknown>;
  readonly isOpen: boolean;
  readonly masters: ReadonlyArray<unknown>;
  on(event: string, listener: () => void): unknown;
  quit(): Promise<unknown>;
  readonly options?: {
    readonly rootNodes?: ReadonlyArray<{
      readonly url?: string;
      readonly socket?: { readonly host?: string; readonly port?: number };
    }>;
  };
}

/** An ioredis client or cluster: the library's native client. */
export type IoredisClient = Redis | Cluster;

/** A Redis master as the library accepts it: an ioredis client or cluster, or a node-redis client. */
export type Client = IoredisClient | NodeRedisClient | NodeRedisClusterClient;

export const isNodeRedisCluster = (client: Client): client is NodeRedisClusterClient =>
  typeof (client as Partial<NodeRedisClusterClient>).sendCommand === "function" &&
  Array.isArray((client as Partial<NodeRedisClusterClient>).masters);

export const isNodeRedisClient = (client: Client): client is NodeRedisClient =>
  typeof (client as Partial<NodeRedisClient>).sendCommand === "function" &&
  typeof (client as { evalsha?: unknown }).evalsha !== "function" &&
  !isNodeRedisCluster(client);

/** Whether node-redis made this error from a Redis error reply (`ErrorReply` or a subclass). */
function isErrorReply(error: Error): boolean {
  for (let proto = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto))
    if ((proto as { constructor?: { name?: string } }).constructor?.name === "ErrorReply")
      return true;
  return false;
}

/** The error ioredis gives a refused command; node-redis's `ErrorReply` is renamed to match. */
const asReplyError = (error: unknown): unknown => {
  if (error instanceof Error && isErrorReply(error)) {
    const reply = new Error(error.message, { cause: error });
    reply.name = "ReplyError";
    return reply;
  }
  return error;
};

function describeNodeRedis(client: NodeRedisClient): string {
  const socket = client.options?.socket as
    { host?: string; port?: number; path?: string } | undefined;
  if (socket?.path) return socket.path;
  if (socket?.host || socket?.port) return `${socket.host ?? "localhost"}:${socket.port ?? 6379}`;
  const url = client.options?.url;
  if (!url) return "localhost:6379";
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 6379}`;
}

/**
 * Presents a node-redis client with the few ioredis members the library calls (evalsha, eval,
 * info, status, ready/close events, quit), so one code path serves both clients. node-redis
 * already pipelines the commands of one event-loop turn, so this adapter offers no `pipeline`
 * and the library sends each operation as its own script call.
 */
class NodeRedisAdapter {
  readonly options = {};
  readonly isCluster = false;
  readonly address: string;

  constructor(readonly client: NodeRedisClient) {
    this.address = describeNodeRedis(client);
  }

  get status(): string {
    if (this.client.isReady) return "ready";
    return this.client.isOpen ? "connecting" : "end";
  }

  evalsha(sha: string, keyCount: number, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    return this.send(["EVALSHA", sha, String(keyCount), ...keysAndArgs.map(String)]);
  }

  eval(body: string, keyCount: number, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    return this.send(["EVAL", body, String(keyCount), ...keysAndArgs.map(String)]);
  }

  info(section: string): Promise<unknown> {
    return this.send(["INFO", section]);
  }

  /** "close" is ioredis's name for a lost connection; node-redis says "end" or "reconnecting". */
  on(event: "ready" | "close", listener: () => void): this {
    if (event === "ready") this.client.on("ready", listener);
    else for (const name of ["end", "reconnecting"]) this.client.on(name, listener);
    return this;
  }

  quit(): Promise<unknown> {
    return this.client.quit();
  }

  private send(args: string[]): Promise<unknown> {
    return this.client.sendCommand(args).catch((error: unknown) => {
      throw asReplyError(error);
    });
  }
}

/**
 * A node-redis cluster in the same shape: each script call is routed by its first key (the
 * library's keys of one call share a slot), INFO goes to any shard. Like an ioredis Cluster it
 * reports `isCluster`, so calls are not batched across slots and waiters sleep instead of
 * subscribing.
 */
class NodeRedisClusterAdapter {
  readonly options = {};
  readonly isCluster = true;
  readonly address: string;

  constructor(readonly client: NodeRedisClusterClient) {
    const root = client.options?.rootNodes?.[0];
    const host = root?.socket?.host ?? (root?.url ? new URL(root.url).hostname : "localhost");
    const port = root?.socket?.port ?? (root?.url ? new URL(root.url).port || 6379 : 6379);
    this.address = `cluster ${host}:${port}`;
  }

  get status(): string {
    return this.client.isOpen ? "ready" : "end";
  }

  evalsha(sha: string, keyCount: number, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    return this.send(keyCount > 0 ? String(keysAndArgs[0]) : undefined, [
      "EVALSHA",
      sha,
      String(keyCount),
      ...keysAndArgs.map(String),
    ]);
  }

  eval(body: string, keyCount: number, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    return this.send(keyCount > 0 ? String(keysAndArgs[0]) : undefined, [
      "EVAL",
      body,
      String(keyCount),
      ...keysAndArgs.map(String),
    ]);
  }

  info(section: string): Promise<unknown> {
    return this.send(undefined, ["INFO", section]);
  }

  on(event: "ready" | "close", listener: () => void): this {
    this.client.on(event === "ready" ? "connect" : "disconnect", listener);
    return this;
  }

  quit(): Promise<unknown> {
    return this.client.quit();
  }

  private send(firstKey: string | undefined, args: string[]): Promise<unknown> {
    return this.client.sendCommand(firstKey, false, args).catch((error: unknown) => {
      throw asReplyError(error);
    });
  }
}

/**
 * Whether script calls go through the client's own `evalsha`/`eval` rather than a raw ioredis
 * Command: a Cluster routes each call by key, and the node-redis adapter has no ioredis connection.
 */
export const usesOwnEval = (client: IoredisClient): boolean =>
  client.isCluster || client instanceof NodeRedisAdapter;

/** The client in the shape the library drives: ioredis as it is, node-redis through the adapter. */
export function adaptClient(client: Client): IoredisClient {
  if (isNodeRedisCluster(client))
    return new NodeRedisClusterAdapter(client) as unknown as IoredisClient;
  if (!isNodeRedisClient(client)) return client;
  return new NodeRedisAdapter(client) as unknown as IoredisClient;
}

/** `host:port` (or socket path) of a client, never its password. */
export function describeClient(client: Client | IoredisClient): string {
  if (client instanceof NodeRedisAdapter || client instanceof NodeRedisClusterAdapter)
    return client.address;
  if (isNodeRedisCluster(client)) return new NodeRedisClusterAdapter(client).address;
  if (isNodeRedisClient(client)) return describeNodeRedis(client);
  const options = (client as { options?: { host?: string; port?: number; path?: string } }).options;
  if (options?.path) return options.path;
  return options?.host ? `${options.host}:${options.port ?? 6379}` : "cluster";
}
