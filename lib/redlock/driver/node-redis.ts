import type { CommandArg, CommandKey, ConnectionStatus, RedisDriver, Subscriber } from "./driver";

/** The pub/sub members of a node-redis client or cluster (of the duplicate a subscriber uses). */
export interface NodeRedisPubSub {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  on(event: "error", listener: () => void): unknown;
  disconnect(): Promise<unknown>;
}

/**
 * The node-redis (`redis` v4 or v5) client methods this library uses. Commands go through
 * `sendCommand`, which both major versions share, so no version-specific command helper is needed.
 */
export interface NodeRedisClient {
  /** Both versions take a Buffer as an argument's bytes. */
  sendCommand(args: ReadonlyArray<string | Buffer>): Promise<unknown>;
  readonly isReady: boolean;
  readonly isOpen: boolean;
  on(event: string, listener: () => void): unknown;
  quit(): Promise<unknown>;
  readonly options?: { readonly url?: string; readonly socket?: object };
  /** A new client with the same options: the subscriber's connection. */
  duplicate?(): NodeRedisPubSub;
}

/** Whether node-redis made this error from a Redis error reply (`ErrorReply` or a subclass). */
function isErrorReply(error: Error): boolean {
  for (
    let proto: unknown = Object.getPrototypeOf(error);
    proto;
    proto = Object.getPrototypeOf(proto)
  )
    if (typeof proto === "object" && proto.constructor.name === "ErrorReply") return true;
  return false;
}

/** A refused command fails as it does with ioredis: node-redis's `ErrorReply` renamed ReplyError. */
export function rethrowAsReplyError(error: unknown): never {
  if (error instanceof Error && isErrorReply(error)) {
    const reply = new Error(error.message, { cause: error });
    reply.name = "ReplyError";
    throw reply;
  }
  throw error;
}

/** EVALSHA or EVAL as node-redis sends it: one list of strings. */
export const scriptArgs = (
  command: "EVALSHA" | "EVAL",
  shaOrBody: string,
  keys: readonly CommandKey[],
  args: readonly CommandArg[],
): Array<string | Buffer> => [
  command,
  shaOrBody,
  String(keys.length),
  ...keys,
  ...args.map(asArgument),
];

/** A Buffer goes as its bytes (String() would decode it as UTF-8 and replace what is not). */
export const asArgument = (arg: CommandArg): string | Buffer =>
  typeof arg === "number" ? String(arg) : arg;

/** A node-redis duplicate, connected, used for pub/sub only. */
export class NodeRedisSubscriber implements Subscriber {
  private constructor(private readonly connection: NodeRedisPubSub) {}

  static async open(connection: NodeRedisPubSub | undefined): Promise<Subscriber> {
    if (!connection) throw new Error("This node-redis client cannot duplicate itself.");
    // Errors surface as reconnects, after which node-redis subscribes again on its own.
    connection.on("error", () => undefined);
    const subscriber = new NodeRedisSubscriber(connection);
    await connection.connect().catch((error: unknown) => {
      subscriber.close();
      throw error;
    });
    return subscriber;
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    await this.connection.subscribe(channel, (message) => onMessage(message));
  }

  close(): void {
    try {
      // node-redis 5 throws at once when the client is closed already.
      void this.connection.disconnect().catch(() => undefined);
    } catch {
      // Closed already.
    }
  }
}

function describe({ options }: NodeRedisClient): string {
  const socket: { host?: string; port?: number; path?: string } | undefined = options?.socket;
  if (socket?.path) return socket.path;
  if (socket?.host || socket?.port) return `${socket.host ?? "localhost"}:${socket.port ?? 6379}`;
  if (!options?.url) return "localhost:6379";
  const url = new URL(options.url);
  return `${url.hostname}:${url.port || 6379}`;
}

/**
 * A node-redis client. node-redis already writes the commands of one event-loop turn together, so
 * node.ts sends each operation as its own call rather than batching them.
 */
export class NodeRedisDriver implements RedisDriver {
  readonly address: string;
  readonly kind = "node-redis";
  readonly batches = false;

  constructor(private readonly client: NodeRedisClient) {
    this.address = describe(client);
  }

  /** node-redis holds commands while it reconnects, as while it first connects. */
  get status(): ConnectionStatus {
    if (this.client.isReady) return "ready";
    return this.client.isOpen ? "connecting" : "end";
  }

  evalsha(sha: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown> {
    return this.send(scriptArgs("EVALSHA", sha, keys, args));
  }

  eval(body: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown> {
    return this.send(scriptArgs("EVAL", body, keys, args));
  }

  command(name: string, args: CommandArg[]): Promise<unknown> {
    return this.send([name, ...args.map(asArgument)]);
  }

  async info(section: string): Promise<string> {
    return String(await this.send(["INFO", section]));
  }

  /** node-redis says "end" or "reconnecting" for a lost connection. */
  on(event: "ready" | "close", listener: () => void): void {
    if (event === "ready") this.client.on("ready", listener);
    else for (const name of ["end", "reconnecting"]) this.client.on(name, listener);
  }

  subscriber(): Promise<Subscriber> {
    return NodeRedisSubscriber.open(this.client.duplicate?.());
  }

  async clientId(): Promise<number> {
    return Number(await this.send(["CLIENT", "ID"]));
  }

  private send(args: Array<string | Buffer>): Promise<unknown> {
    return this.client.sendCommand(args).catch(rethrowAsReplyError);
  }
}
