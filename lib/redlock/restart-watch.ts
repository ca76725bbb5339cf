import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { NodeQuarantinedError } from "./errors";
import type { Cluster, Redis } from "ioredis";
import { asNodeRedisCluster, type IoredisClient as Client } from "./client-adapter";

/** An ioredis Cluster: its primaries' own connections are reachable, so each can be asked. */
const isIoredisCluster = (client: Client): client is Cluster =>
  (client as { isCluster?: boolean }).isCluster === true &&
  typeof (client as { nodes?: unknown }).nodes === "function";

/** The servers of a cluster lock node, as the restart watch asks them. */
interface ShardView {
  /**
   * INFO server of every server that is a primary now (null: it did not answer); a primary known
   * by another identity only may be `run_id:<identity>` without uptime.
   */
  primaryInfos(): Promise<Array<string | null>>;
  /** `listener` runs whenever the client learned its topology anew. */
  onTopology(listener: () => void): void;
  /** `listener` runs whenever the connection to one server is lost. */
  onServerLost(listener: () => void): void;
  /** Looks at the topology again; the topology listener runs once it is known. */
  lookAgain(): void;
  readonly ended: boolean;
}

/** How long one server of a node-redis cluster may take to say its role and run_id. */
const SERVER_ANSWER_MS = 1_000;

/** ioredis Cluster and node-redis createCluster lock nodes are watched per shard; others are not. */
function shardViewOf(client: Client): ShardView | undefined {
  if (isIoredisCluster(client))
    return {
      primaryInfos: async () => {
        // Its primaries are known once the client is ready (the vote waiting here is bounded by its node timeout).
        if (client.status !== "ready")
          await once(client, "ready", { signal: AbortSignal.timeout(CLUSTER_READY_WAIT_MS) });
        const primaries: Redis[] = client.nodes("master");
        return Promise.all(
          primaries.map((primary) => (primary.info("server") as Promise<string>).catch(() => null)),
        );
      },
      // At every slot-map refresh (on MOVED, a lost connection, and every `slotsRefreshInterval`).
      onTopology: (listener) => client.on("refresh", listener),
      onServerLost: (listener) => client.on("-node", listener),
      // refreshSlotsCache emits "refresh" when it learns the slots.
      lookAgain: () => client.refreshSlotsCache(),
      get ended() {
        return client.status === "end";
      },
    };
  const nodeRedis = asNodeRedisCluster(client);
  if (!nodeRedis) return undefined;
  const listeners: Array<() => void> = [];
  return {
    // The cluster names its primaries: no slot refresh is needed to see a promotion.
    primaryInfos: () => nodeRedis.primaryInfos(SERVER_ANSWER_MS),
    onTopology: (listener) => {
      listeners.push(listener);
      nodeRedis.onServer("ready", listener);
    },
    onServerLost: (listener) => nodeRedis.onServer("lost", listener),
    lookAgain: () => {
      for (const listener of listeners) listener();
    },
    get ended() {
      return nodeRedis.status === "end";
    },
  };
}

/**
 * The latest moment (monotonic clock) a process reporting `uptimeS` can have started.
 * uptime_in_seconds is the difference of two whole-second timestamps (now and start), so it reads 1
 * a few ms after a start just before a second ticks over: the start is at most (uptime - 1) s ago.
 */
const latestStartMono = (uptimeS: number): number =>
  performance.now() - Math.max(0, uptimeS - 1) * 1000;

/** After a cluster lost a shard's connection, its slots are re-read this often, this long. */
const TOPOLOGY_POLL_MS = 500;
const TOPOLOGY_FOLLOW_MS = 30_000;

/** How long a restart check waits for a cluster client to learn its slots. */
const CLUSTER_READY_WAIT_MS = 5_000;

const parseInfoField = (info: string, field: string) =>
  new RegExp(`^${field}:(.*)$`, "m").exec(info)?.[1]?.trim();

/**
 * Learns when a node's Redis process started, once per (re)connection, from INFO server, and
 * withholds the node's vote until `restartQuarantineMs` after that start. A restarted master may have
 * lost its keys, so it could otherwise grant a lock that is still held elsewhere. The start time is
 * kept on the monotonic clock, so a wall-clock jump cannot shorten the quarantine. Lock operations
 * pay nothing for it: INFO runs only when a connection becomes ready.
 *
 * A cluster lock node (ioredis Cluster, node-redis createCluster) is watched per shard: whenever the
 * client learns its topology (ioredis: every slot-map refresh; node-redis: a server's connection
 * becoming ready) and every 500 ms for 30 s after a server's connection is lost, each primary is
 * asked for its run_id, and a primary not seen as one before (a restarted process, or a replica
 * promoted by a failover, which may lack the latest writes) quarantines the whole lock node from
 * that moment.
 */
export class RestartWatch {
  private startedAtMono: number | undefined;
  private pendingCheck: Promise<void> | undefined;
  uptimeS: number | undefined;
  runId: string | undefined;
  /** Bumped at every disconnection: an answer that crossed one may come from a restarted process. */
  connectionGeneration = 0;
  /** Cluster lock nodes: the run_ids of the primaries seen so far. */
  private readonly primaryRunIds = new Set<string>();
  private readonly shards: ShardView | undefined;

  constructor(
    private readonly client: Client,
    private readonly quarantineMs: number | false,
  ) {
    this.shards = quarantineMs === false ? undefined : shardViewOf(client);
    if (quarantineMs === false || typeof client.on !== "function") return;
    client.on("close", () => {
      this.connectionGeneration += 1;
      this.forget();
    });
    client.on("ready", () => this.check());
    const shards = this.shards;
    if (shards) {
      shards.onTopology(() => void this.checkShards(shards).catch(() => undefined));
      // A shard lost: its replica may be promoted within the cluster's node timeout, which the
      // client only learns later. Look again a while, so the promotion is seen whether or not a
      // command meets the dead primary first.
      shards.onServerLost(() => this.followTopology(shards));
    }
    if ((client as { status?: string }).status === "ready") this.check();
    else this.forget();
  }

  get enabled(): boolean {
    return this.quarantineMs !== false;
  }

  /** Epoch ms until which the node is quarantined, if it is now. */
  quarantinedUntil(): number | undefined {
    if (this.quarantineMs === false || this.startedAtMono === undefined) return undefined;
    const remainingMs = this.startedAtMono + this.quarantineMs - performance.now();
    return remainingMs > 0 ? Date.now() + remainingMs : undefined;
  }

  /** True while the node's start time is not yet known since its last (re)connection. */
  get isUnknown(): boolean {
    return this.enabled && this.startedAtMono === undefined;
  }

  /** Resolves when the restart check of the current connection is done (immediately when it is). */
  async ready(): Promise<void> {
    if (this.isUnknown) await (this.pendingCheck ?? this.check());
  }

  /** The reason to withhold this node's vote now, if any. */
  quarantineError(address: string): NodeQuarantinedError | undefined {
    const until = this.quarantinedUntil();
    return until === undefined ? undefined : new NodeQuarantinedError(address, until);
  }

  private forget(): void {
    this.startedAtMono = undefined;
  }

  /**
   * The primaries' run_ids and uptimes; a primary not seen before restarts the quarantine: from its
   * own start on the first look, from now after (a promoted replica ran long, but as a replica).
   */
  private async checkShards(shards: ShardView): Promise<void> {
    const infos = await shards.primaryInfos();
    const first = this.primaryRunIds.size === 0;
    let newestStartMono: number | undefined;
    for (const info of infos) {
      const runId = info === null ? undefined : parseInfoField(info, "run_id");
      if (info === null || runId === undefined || this.primaryRunIds.has(runId)) continue;
      this.primaryRunIds.add(runId);
      const uptimeS = Number(parseInfoField(info, "uptime_in_seconds"));
      // A primary known by id only (no uptime) on the first look is simply remembered.
      if (first && !Number.isFinite(uptimeS)) continue;
      const startMono = first ? latestStartMono(uptimeS) : performance.now();
      newestStartMono = Math.max(newestStartMono ?? startMono, startMono);
    }
    if (newestStartMono !== undefined)
      this.startedAtMono = Math.max(this.startedAtMono ?? newestStartMono, newestStartMono);
  }

  private followUntilMono = 0;

  private followTopology(shards: ShardView): void {
    const following = this.followUntilMono > performance.now();
    this.followUntilMono = performance.now() + TOPOLOGY_FOLLOW_MS;
    if (following) return;
    const timer = setInterval(() => {
      if (performance.now() > this.followUntilMono || shards.ended) {
        clearInterval(timer);
        return;
      }
      shards.lookAgain();
    }, TOPOLOGY_POLL_MS);
    timer.unref();
  }

  private check(): Promise<void> {
    this.forget();
    let check: Promise<void>;
    if (this.shards) {
      this.primaryRunIds.clear();
      check = this.checkShards(this.shards);
    } else {
      check = (this.client.info("server") as Promise<string>).then((info) => {
        const uptimeS = Number(parseInfoField(info, "uptime_in_seconds"));
        this.uptimeS = uptimeS;
        this.runId = parseInfoField(info, "run_id");
        if (Number.isFinite(uptimeS)) this.startedAtMono = latestStartMono(uptimeS);
      });
    }
    // On failure the next "ready" retries; until then the node stays unknown (no vote).
    const settled = check.catch(() => undefined);
    this.pendingCheck = settled;
    void settled.finally(() => {
      if (this.pendingCheck === settled) this.pendingCheck = undefined;
    });
    return settled;
  }
}
