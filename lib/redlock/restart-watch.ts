import { performance } from "node:perf_hooks";
import { NodeQuarantinedError } from "./errors";
import type { ClusterTopology, Question, RedisDriver } from "./driver";

const INFO_SERVER: Question = ["INFO", "server"];
const CLUSTER_NODES: Question = ["CLUSTER", "NODES"];

const parseInfoField = (info: string, field: string) =>
  new RegExp(`^${field}:(.*)$`, "m").exec(info)?.[1]?.trim();

/** A primary's identity and its uptime (NaN when unknown: known by cluster node id only). */
interface PrimarySeen {
  readonly runId: string;
  readonly uptimeS: number;
}

/** The primaries a CLUSTER NODES reply names (not failed), by cluster node id. */
function primaryIdsIn(clusterNodes: string): string[] {
  return clusterNodes.split("\n").flatMap((line) => {
    const [id, , flags = ""] = line.split(" ");
    return id && flags.includes("master") && !flags.includes("fail") ? [id] : [];
  });
}

/**
 * Every primary of a cluster lock node: by run_id and uptime from its INFO server, and, for a client
 * that learns of a promoted replica only once a command meets MOVED (no `refresh`), also by cluster
 * node id from what the cluster itself names a primary (CLUSTER NODES), so a promotion is seen first
 * by its node id. A server that did not answer is left out.
 */
async function primariesOf(shards: ClusterTopology): Promise<PrimarySeen[]> {
  const asksCluster = shards.refresh === undefined;
  const answers = await shards.askPrimaries(
    asksCluster ? [INFO_SERVER, CLUSTER_NODES] : [INFO_SERVER],
  );
  const seen: PrimarySeen[] = [];
  const nodeIds = new Set<string>();
  for (const answer of answers) {
    if (answer === null) continue;
    const [info = "", clusterNodes = ""] = answer;
    const runId = parseInfoField(info, "run_id");
    const uptimeS = Number(parseInfoField(info, "uptime_in_seconds"));
    if (runId !== undefined) seen.push({ runId, uptimeS });
    for (const id of primaryIdsIn(clusterNodes)) nodeIds.add(id);
  }
  for (const id of nodeIds) seen.push({ runId: `cluster-node-${id}`, uptimeS: NaN });
  return seen;
}

/**
 * The latest moment (monotonic clock) a process reporting `uptimeS` can have started.
 * uptime_in_seconds is the difference of two whole-second timestamps (now and start), so it reads 1
 * a few ms after a start just before a second ticks over: the start is at most (uptime - 1) s ago.
 */
const latestStartMono = (uptimeS: number): number =>
  performance.now() - Math.max(0, uptimeS - 1) * 1000;

/** After a cluster lost a shard's connection, its primaries are looked at this often, this long. */
const TOPOLOGY_POLL_MS = 500;
const TOPOLOGY_FOLLOW_MS = 30_000;

/**
 * Learns when a node's Redis process started, once per (re)connection, from INFO server, and
 * withholds the node's vote until `restartQuarantineMs` after that start. A restarted master may have
 * lost its keys, so it could otherwise grant a lock that is still held elsewhere. A run_id other than
 * the one seen before on the node is another process, whatever its uptime: the window then runs
 * from the moment the change was seen. The start time is
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
  private readonly shards: ClusterTopology | undefined;

  constructor(
    private readonly driver: RedisDriver,
    private readonly quarantineMs: number | false,
  ) {
    if (quarantineMs === false) return;
    driver.on("close", () => {
      this.connectionGeneration += 1;
      this.forget();
    });
    driver.on("ready", () => this.check());
    const shards = (this.shards = driver.cluster);
    if (shards) {
      shards.onTopology(() => void this.checkShards(shards).catch(() => undefined));
      // A shard lost: its replica may be promoted within the cluster's node timeout, which the
      // client only learns later. Look again a while, so the promotion is seen whether or not a
      // command meets the dead primary first.
      shards.onServerLost(() => this.followTopology(shards));
    }
    if (driver.status === "ready") this.check();
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
  private async checkShards(shards: ClusterTopology): Promise<void> {
    const primaries = await primariesOf(shards);
    const first = this.primaryRunIds.size === 0;
    let newestStartMono: number | undefined;
    for (const { runId, uptimeS } of primaries) {
      if (this.primaryRunIds.has(runId)) continue;
      this.primaryRunIds.add(runId);
      // A primary known by id only (no uptime) on the first look is simply remembered.
      if (first && !Number.isFinite(uptimeS)) continue;
      const startMono = first ? latestStartMono(uptimeS) : performance.now();
      newestStartMono = Math.max(newestStartMono ?? startMono, startMono);
    }
    if (newestStartMono !== undefined)
      this.startedAtMono = Math.max(this.startedAtMono ?? newestStartMono, newestStartMono);
  }

  private followUntilMono = 0;

  private followTopology(shards: ClusterTopology): void {
    const following = this.followUntilMono > performance.now();
    this.followUntilMono = performance.now() + TOPOLOGY_FOLLOW_MS;
    if (following) return;
    const timer = setInterval(() => {
      if (performance.now() > this.followUntilMono || this.driver.status === "end") {
        clearInterval(timer);
        return;
      }
      // A client that reads the slot map re-reads it (its topology listener then checks); one
      // that does not is asked nothing: the check asks the cluster itself.
      if (shards.refresh) shards.refresh();
      else void this.checkShards(shards).catch(() => undefined);
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
      check = this.driver.info("server").then((info) => {
        const uptimeS = Number(parseInfoField(info, "uptime_in_seconds"));
        const runId = parseInfoField(info, "run_id");
        // Another process behind the same address (a failover to a standby, a repointed proxy or
        // DNS name) may lack the latest writes however long it has run: from now, as a cluster's
        // promoted primary.
        const replaced = this.runId !== undefined && runId !== this.runId;
        this.uptimeS = uptimeS;
        this.runId = runId;
        if (replaced) this.startedAtMono = performance.now();
        else if (Number.isFinite(uptimeS)) this.startedAtMono = latestStartMono(uptimeS);
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
