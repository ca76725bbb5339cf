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
  /** node-redis 4 and 5: a connection to one server of the cluster. */
  nodeClient?(
    node: unknown,
  ): Promise<{ sendCommand(args: ReadonlyArray<string>): Promise<unknown> }>;
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

function describeNodeRedisCluster(client: NodeRedisClusterClient): string {
  const root = client.options?.rootNodes?.[0];
  const url = root?.url ? new URL(root.url) : undefined;
  return `cluster ${root?.socket?.host ?? url?.hostname ?? "localhost"}:${root?.socket?.port ?? (url?.port || 6379)}`;
}

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
 * The script calls and INFO as node-redis sends them: one argument list, which a cluster routes by
 * its first key (the library's keys of one call share a slot); errors renamed as ioredis names them.
 */
abstract class NodeRedisCommands {
  readonly options = {};

  evalsha(sha: string, keyCount: number, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    return this.script("EVALSHA", sha, keyCount, keysAndArgs);
  }

  eval(body: string, keyCount: number, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    return this.script("EVAL", body, keyCount, keysAndArgs);
  }

  info(section: string): Promise<unknown> {
    return this.send(undefined, ["INFO", section]).catch(rethrowAsReplyError);
  }

  /** A plain command whose first argument is its key (script.ts PlainCommand), as ioredis's `call`. */
  call(command: string, key: string, ...args: (string | number)[]): Promise<unknown> {
    return this.send(key, [command, key, ...args.map(String)]).catch(rethrowAsReplyError);
  }

  private script(
    command: "EVALSHA" | "EVAL",
    shaOrBody: string,
    keyCount: number,
    keysAndArgs: (string | number)[],
  ): Promise<unknown> {
    const args = [command, shaOrBody, String(keyCount), ...keysAndArgs.map(String)];
    return this.send(keyCount > 0 ? args[3] : undefined, args).catch(rethrowAsReplyError);
  }

  protected abstract send(firstKey: string | undefined, args: string[]): Promise<unknown>;
}

const rethrowAsReplyError = (error: unknown): never => {
  throw asReplyError(error);
};

/**
 * Presents a node-redis client with the few ioredis members the library calls (evalsha, eval,
 * info, status, ready/close events, quit), so one code path serves both clients. node-redis
 * already pipelines the commands of one event-loop turn, so this adapter offers no `pipeline`
 * and the library sends each operation as its own script call.
 */
class NodeRedisAdapter extends NodeRedisCommands {
  readonly isCluster = false;
  readonly address: string;

  constructor(readonly client: NodeRedisClient) {
    super();
    this.address = describeNodeRedis(client);
  }

  get status(): string {
    if (this.client.isReady) return "ready";
    return this.client.isOpen ? "connecting" : "end";
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

  protected send(_firstKey: string | undefined, args: string[]): Promise<unknown> {
    return this.client.sendCommand(args);
  }
}

/**
 * A shard answers TRYAGAIN to a script whose keys a slot migration in progress split (some moved,
 * some not yet). ioredis's Cluster retries it on its own; node-redis's does not, so its adapter
 * does, briefly: the node timeout still bounds the whole vote.
 */
const TRYAGAIN_RETRIES = 20;
const TRYAGAIN_DELAY_MS = 25;

/**
 * A node-redis cluster in the same shape. Like an ioredis Cluster it reports `isCluster`, so calls
 * are not batched across slots and waiters sleep instead of subscribing.
 */
class NodeRedisClusterAdapter extends NodeRedisCommands {
  readonly isCluster = true;
  readonly address: string;

  constructor(readonly client: NodeRedisClusterClient) {
    super();
    this.address = describeNodeRedisCluster(client);
  }

  get status(): string {
    return this.client.isOpen ? "ready" : "end";
  }

  on(event: "ready" | "close", listener: () => void): this {
    this.client.on(event === "ready" ? "connect" : "disconnect", listener);
    return this;
  }

  quit(): Promise<unknown> {
    return this.client.quit();
  }

  /**
   * INFO server of every primary node-redis knows, then `run_id:cluster-node-<id>` for every primary
   * the cluster itself names (CLUSTER NODES): node-redis learns of a promoted replica only when a
   * command meets a MOVED, and lists no replicas unless it reads from them, so a promotion is seen
   * by its cluster node id first. A server that does not answer within `timeoutMs` is skipped (null).
   */
  async primaryInfos(timeoutMs: number): Promise<Array<string | null>> {
    const { client } = this;
    if (!client.nodeClient) return [];
    const answers = await Promise.all(
      client.masters.map(async (node) => {
        let timer: NodeJS.Timeout | undefined;
        const ask = async () => {
          const server = await client.nodeClient!(node);
          const [info, nodes] = await Promise.all([
            server.sendCommand(["INFO", "server"]),
            server.sendCommand(["CLUSTER", "NODES"]),
          ]);
          return { info: String(info), nodes: String(nodes) };
        };
        const timeout = new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), timeoutMs);
        });
        try {
          return await Promise.race([ask().catch(() => null), timeout]);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const primaryIds = new Set<string>();
    for (const answer of answers)
      for (const line of answer?.nodes.split("\n") ?? []) {
        const [id, , flags = ""] = line.split(" ");
        if (id && flags.includes("master") && !flags.includes("fail")) primaryIds.add(id);
      }
    return [
      ...answers.map((answer) => answer?.info ?? null),
      ...[...primaryIds].map((id) => `run_id:cluster-node-${id}`),
    ];
  }

  /**
   * A server's connection became ready (a new primary after a failover), or was lost: node-redis
   * then reconnects it ("node-reconnecting", again at every attempt) unless it was closed for good.
   */
  onServer(event: "ready" | "lost", listener: () => void): void {
    if (event === "ready") this.client.on("node-ready", listener);
    else
      for (const name of ["node-reconnecting", "node-disconnect"]) this.client.on(name, listener);
  }

  protected async send(firstKey: string | undefined, args: string[]): Promise<unknown> {
    for (let retries = 0; ; retries += 1) {
      try {
        return await this.client.sendCommand(firstKey, false, args);
      } catch (error) {
        const tryAgain = error instanceof Error && error.message.startsWith("TRYAGAIN");
        if (!tryAgain || retries === TRYAGAIN_RETRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, TRYAGAIN_DELAY_MS));
      }
    }
  }
}

/**
 * Whether script calls go through the client's own `evalsha`/`eval` rather than a raw ioredis
 * Command: a Cluster routes each call by key, and the node-redis adapter has no ioredis connection.
 */
export const usesOwnEval = (client: IoredisClient): boolean =>
  client.isCluster || client instanceof NodeRedisAdapter;

/** A node-redis cluster lock node, as the restart watch asks its servers. */
export const asNodeRedisCluster = (client: IoredisClient): NodeRedisClusterAdapter | undefined =>
  client instanceof NodeRedisClusterAdapter ? client : undefined;

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
  if (isNodeRedisCluster(client)) return describeNodeRedisCluster(client);
  if (isNodeRedisClient(client)) return describeNodeRedis(client);
  const options = (client as { options?: { host?: string; port?: number; path?: string } }).options;
  if (options?.path) return options.path;
  return options?.host ? `${options.host}:${options.port ?? 6379}` : "cluster";
}
