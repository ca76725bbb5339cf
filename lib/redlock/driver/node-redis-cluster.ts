import { clusterSlot } from "../keys";
import type {
  ClusterTopology,
  CommandArg,
  CommandKey,
  ConnectionStatus,
  Question,
  RedisDriver,
  Subscriber,
} from "./driver";
import {
  NodeRedisSubscriber,
  rethrowAsReplyError,
  scriptArgs,
  asArgument,
  type NodeRedisPubSub,
} from "./node-redis";

/** A connection to one server of a node-redis cluster. */
interface ServerConnection {
  sendCommand(args: ReadonlyArray<string>): Promise<unknown>;
}

/**
 * The node-redis cluster (`createCluster`) methods this library uses: `sendCommand` routes each
 * command by its first key to the shard that owns the key's slot.
 */
export interface NodeRedisClusterClient {
  sendCommand(
    firstKey: string | Buffer | undefined,
    isReadonly: boolean | undefined,
    args: ReadonlyArray<string | Buffer>,
  ): Promise<unknown>;
  readonly isOpen: boolean;
  readonly masters: ReadonlyArray<unknown>;
  /** node-redis 4 and 5: each slot with the primary serving it. */
  readonly slots?: ReadonlyArray<{ readonly master: unknown } | undefined>;
  /** node-redis 4 and 5: a connection to one server of the cluster. */
  nodeClient?(node: unknown): Promise<ServerConnection>;
  /** A new cluster client with the same options: the subscriber's connection. */
  duplicate?(overrides: { minimizeConnections: boolean }): NodeRedisPubSub;
  on(event: string, listener: () => void): unknown;
  quit(): Promise<unknown>;
  /** node-redis 4 names its options `options`, 5 `_options`. */
  readonly options?: ClusterOptions;
  readonly _options?: ClusterOptions;
}

interface ClusterOptions {
  readonly rootNodes?: ReadonlyArray<{
    readonly url?: string;
    readonly socket?: { readonly host?: string; readonly port?: number };
  }>;
}

/**
 * A shard answers TRYAGAIN to a script whose keys a slot migration in progress split (some moved,
 * some not yet). ioredis's Cluster retries it on its own; node-redis's does not, so the driver
 * does, briefly: the node timeout still bounds the whole vote.
 */
const TRYAGAIN_RETRIES = 20;
const TRYAGAIN_DELAY_MS = 25;

/** How long one server may take to answer a question to the primaries (askPrimaries). */
const SERVER_ANSWER_MS = 1_000;

function describe({ options, _options }: NodeRedisClusterClient): string {
  const root = (_options ?? options)?.rootNodes?.[0];
  const url = root?.url ? new URL(root.url) : undefined;
  return `cluster ${root?.socket?.host ?? url?.hostname ?? "localhost"}:${root?.socket?.port ?? (url?.port || 6379)}`;
}

const firstOf = (keys: readonly CommandArg[]) =>
  keys.length > 0 ? asArgument(keys[0]!) : undefined;

/** `ask`'s answer, or null once `timeoutMs` passed first or when it failed. */
async function within<T>(timeoutMs: number, ask: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    return await Promise.race([ask().catch(() => null), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A node-redis cluster. Each command goes to the shard of its first key (the keys of one call share a slot). */
export class NodeRedisClusterDriver implements RedisDriver {
  readonly address: string;
  readonly kind = "node-redis-cluster";
  readonly batches = false;
  readonly cluster: ClusterTopology;

  constructor(private readonly client: NodeRedisClusterClient) {
    this.address = describe(client);
    this.cluster = {
      askPrimaries: (commands) => this.askPrimaries(commands),
      primaryOf: (key) => {
        const primary = client.slots?.[clusterSlot(key)]?.master;
        return typeof primary === "object" && primary !== null && "address" in primary
          ? String(primary.address)
          : undefined;
      },
      // A server's connection became ready: a new primary after a failover, or one reconnected.
      onTopology: (listener) => client.on("node-ready", listener),
      // node-redis reconnects a lost server ("node-reconnecting", again at every attempt) unless
      // it was closed for good.
      onServerLost: (listener) => {
        for (const name of ["node-reconnecting", "node-disconnect"]) client.on(name, listener);
      },
    };
  }

  get status(): ConnectionStatus {
    return this.client.isOpen ? "ready" : "end";
  }

  evalsha(sha: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown> {
    return this.send(firstOf(keys), scriptArgs("EVALSHA", sha, keys, args));
  }

  eval(body: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown> {
    return this.send(firstOf(keys), scriptArgs("EVAL", body, keys, args));
  }

  command(name: string, args: CommandArg[]): Promise<unknown> {
    return this.send(firstOf(args), [name, ...args.map(asArgument)]);
  }

  async info(section: string): Promise<string> {
    return String(await this.send(undefined, ["INFO", section]));
  }

  on(event: "ready" | "close", listener: () => void): void {
    this.client.on(event === "ready" ? "connect" : "disconnect", listener);
  }

  /**
   * A duplicate of the cluster client that connects to no server until asked: node-redis then
   * SUBSCRIBEs on one connection to a random server of the cluster, and moves the subscription when
   * that server fails. Any server will do: the cluster bus carries every PUBLISH, whichever shard it
   * ran on, to every node.
   */
  subscriber(): Promise<Subscriber> {
    return NodeRedisSubscriber.open(this.client.duplicate?.({ minimizeConnections: true }));
  }

  /** The id on the connection to the primary owning `key`'s slot (node-redis keeps one per primary). */
  async clientId(key: string): Promise<number> {
    const primary = this.client.slots?.[clusterSlot(key)]?.master;
    if (!primary || !this.client.nodeClient)
      throw new Error(`This node-redis cluster client cannot tell which primary serves ${key}.`);
    const server = await this.client.nodeClient(primary);
    return Number(await server.sendCommand(["CLIENT", "ID"]));
  }

  /** Each primary node-redis knows, asked at once; one that does not answer in time is null. */
  private async askPrimaries(commands: readonly Question[]): Promise<Array<string[] | null>> {
    const nodeClient = this.client.nodeClient?.bind(this.client);
    if (!nodeClient) return [];
    return Promise.all(
      this.client.masters.map((primary) =>
        within(SERVER_ANSWER_MS, async () => {
          const server = await nodeClient(primary);
          const replies = await Promise.all(commands.map((command) => server.sendCommand(command)));
          return replies.map(String);
        }),
      ),
    );
  }

  /** `firstKey` routes the command (none: any server); a TRYAGAIN is retried (TRYAGAIN_RETRIES). */
  private async send(
    firstKey: string | Buffer | undefined,
    args: Array<string | Buffer>,
  ): Promise<unknown> {
    for (let retries = 0; ; retries += 1) {
      try {
        return await this.client.sendCommand(firstKey, false, args);
      } catch (error) {
        const tryAgain = error instanceof Error && error.message.startsWith("TRYAGAIN");
        if (!tryAgain || retries === TRYAGAIN_RETRIES) rethrowAsReplyError(error);
        await new Promise((resolve) => setTimeout(resolve, TRYAGAIN_DELAY_MS));
      }
    }
  }
}
