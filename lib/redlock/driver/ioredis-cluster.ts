import { once } from "node:events";
import type { Cluster, Redis } from "ioredis";
import { clusterSlot } from "../keys";
import type {
  ClusterTopology,
  Question,
  CommandArg,
  CommandKey,
  ConnectionStatus,
  RedisDriver,
  Subscriber,
} from "./driver";
import { IoredisSubscriber, statusOf } from "./ioredis";

/** How long a question to the primaries waits for the client to learn its slots. */
const CLUSTER_READY_WAIT_MS = 5_000;
/** Slot-map refreshes clientId() asks for when the key's primary has no connection in the pool. */
const PRIMARY_REFRESHES = 3;
/** Wait after each, for a refresh already under way (which the call does not wait for). */
const PRIMARY_REFRESH_WAIT_MS = 50;

/**
 * An ioredis Cluster. Scripts go through the Cluster's own methods, which route each call by its
 * first key to the shard owning the slot and follow MOVED, ASK and TRYAGAIN on their own.
 */
export class IoredisClusterDriver implements RedisDriver {
  /** An ioredis Cluster has no single address to show. */
  readonly address = "cluster";
  readonly kind = "ioredis-cluster";
  readonly batches = false;
  readonly cluster: ClusterTopology;

  constructor(private readonly client: Cluster) {
    this.cluster = {
      askPrimaries: (commands) => this.askPrimaries(commands),
      refresh: () => client.refreshSlotsCache(),
      primaryOf: (key) => client.slots[clusterSlot(key)]?.[0],
      // At every slot-map refresh (on MOVED, a lost connection, and every `slotsRefreshInterval`).
      onTopology: (listener) => client.on("refresh", listener),
      onServerLost: (listener) => client.on("-node", listener),
    };
  }

  get status(): ConnectionStatus {
    return statusOf(this.client.status);
  }

  evalsha(sha: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown> {
    return this.client.evalsha(sha, keys.length, ...keys, ...args);
  }

  eval(body: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown> {
    return this.client.eval(body, keys.length, ...keys, ...args);
  }

  command(name: string, args: CommandArg[]): Promise<unknown> {
    return this.client.call(name, ...args);
  }

  info(section: string): Promise<string> {
    return this.client.info(section);
  }

  on(event: "ready" | "close", listener: () => void): void {
    this.client.on(event, listener);
  }

  /**
   * A duplicate of the Cluster: ioredis SUBSCRIBEs on one connection to a node of the cluster, and
   * moves the subscription when that node fails. Any node will do: the cluster bus carries every
   * PUBLISH, whichever shard it ran on, to every node.
   */
  async subscriber(): Promise<Subscriber> {
    return new IoredisSubscriber(this.client.duplicate());
  }

  /** The id on the connection to the primary owning `key`'s slot (ioredis keeps one per primary). */
  async clientId(key: string): Promise<number> {
    for (let refreshes = 0; ; refreshes += 1) {
      const primaryAddress = (await this.slots())[clusterSlot(key)]?.[0];
      const primary = this.client
        .nodes("master")
        .find(({ options }) => `${options.host}:${options.port}` === primaryAddress);
      if (primary) return primary.client("ID");
      if (refreshes === PRIMARY_REFRESHES)
        throw new Error(`No primary serves the slot of ${key} (${primaryAddress}).`);
      // Its connection closed and left the pool: a slot-map refresh opens it again.
      await new Promise<void>((resolve) => this.client.refreshSlotsCache(() => resolve()));
      await new Promise((resolve) => setTimeout(resolve, PRIMARY_REFRESH_WAIT_MS));
    }
  }

  /** The slot map, once the client has learned it (bounded by CLUSTER_READY_WAIT_MS). */
  private async slots(): Promise<Cluster["slots"]> {
    if (this.client.status !== "ready")
      await once(this.client, "ready", { signal: AbortSignal.timeout(CLUSTER_READY_WAIT_MS) });
    return this.client.slots;
  }

  private async askPrimaries(commands: readonly Question[]): Promise<Array<string[] | null>> {
    await this.slots();
    const primaries: Redis[] = this.client.nodes("master");
    return Promise.all(
      primaries.map((primary) =>
        Promise.all(commands.map(([name, ...args]) => primary.call(name, ...args)))
          .then((replies) => replies.map(String))
          .catch(() => null),
      ),
    );
  }
}
