import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { NodeQuarantinedError } from "./errors";
import type { Cluster, Redis } from "ioredis";
import type { IoredisClient as Client } from "./client-adapter";

/** An ioredis Cluster: its primaries' own connections are reachable, so each can be asked. */
const isIoredisCluster = (client: Client): client is Cluster =>
  (client as { isCluster?: boolean }).isCluster === true &&
  typeof (client as { nodes?: unknown }).nodes === "function";

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
 * An ioredis Cluster lock node is watched per shard: at every slot-map refresh (on MOVED, a lost
 * connection, and every `slotsRefreshInterval`) each primary is asked for its run_id, and a primary
 * not seen as one before (a restarted process, or a replica promoted by a failover, which may lack
 * the latest writes) quarantines the whole lock node from that moment. node-redis clusters are not
 * watched per shard.
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

  constructor(
    private readonly client: Client,
    private readonly quarantineMs: number | false,
  ) {
    if (quarantineMs === false || typeof client.on !== "function") return;
    client.on("close", () => {
      this.connectionGeneration += 1;
      this.forget();
    });
    client.on("ready", () => this.check());
    if (isIoredisCluster(client)) {
      client.on("refresh", () => void this.checkShards(client).catch(() => undefined));
      // A shard lost: its replica may be promoted within the cluster's node timeout, which the
      // client only learns at its next slot refresh. Look again a while, so the promotion is seen
      // whether or not a command meets the dead primary first.
      client.on("-node", () => this.followTopology(client));
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
  private async checkShards(cluster: Cluster): Promise<void> {
    // Its primaries are known once the cluster client is ready (the vote waiting here is bounded by
    // its node timeout).
    if (cluster.status !== "ready")
      await once(cluster, "ready", { signal: AbortSignal.timeout(CLUSTER_READY_WAIT_MS) });
    const primaries: Redis[] = cluster.nodes("master");
    const infos = await Promise.all(
      primaries.map((primary) => (primary.info("server") as Promise<string>).catch(() => null)),
    );
    const first = this.primaryRunIds.size === 0;
    let newestStartMono: number | undefined;
    for (const info of infos) {
      const runId = info === null ? undefined : parseInfoField(info, "run_id");
      if (info === null || runId === undefined || this.primaryRunIds.has(runId)) continue;
      this.primaryRunIds.add(runId);
      const uptimeS = Number(parseInfoField(info, "uptime_in_seconds"));
      const startMono =
        first && Number.isFinite(uptimeS) ? latestStartMono(uptimeS) : performance.now();
      newestStartMono = Math.max(newestStartMono ?? startMono, startMono);
    }
    if (newestStartMono !== undefined)
      this.startedAtMono = Math.max(this.startedAtMono ?? newestStartMono, newestStartMono);
  }

  private followUntilMono = 0;

  private followTopology(cluster: Cluster): void {
    const following = this.followUntilMono > performance.now();
    this.followUntilMono = performance.now() + TOPOLOGY_FOLLOW_MS;
    if (following) return;
    const timer = setInterval(() => {
      if (performance.now() > this.followUntilMono || cluster.status === "end") {
        clearInterval(timer);
        return;
      }
      // refreshSlotsCache emits "refresh" when it learns the slots, which runs checkShards.
      cluster.refreshSlotsCache();
    }, TOPOLOGY_POLL_MS);
    timer.unref();
  }

  private check(): Promise<void> {
    this.forget();
    let check: Promise<void>;
    if (isIoredisCluster(this.client)) {
      this.primaryRunIds.clear();
      check = this.checkShards(this.client);
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
