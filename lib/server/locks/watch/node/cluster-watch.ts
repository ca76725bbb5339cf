import "server-only";
/**
 * The live index of a lock node that is a Redis Cluster: one NodeWatch per primary (each lists and
 * watches its own keys, with its own budget: each primary is a server of its own), and the cluster's
 * topology read every few seconds (CLUSTER SHARDS, one command), so that a failover or a resharding
 * is followed without a restart: a new primary gets a watch and is listed, a demoted or removed one
 * is dropped. For a key the node holds what any primary holds; a key absent from every primary is
 * absent if the primary serving its slot is reachable, unknown if not.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import type { IndexMode, NodeIndex } from "@/lib/api";
import { clusterSlot } from "@redlock-console/redlock";
import { logger, redactText } from "../../../logger";
import type { ClusterNode } from "../../../node-registry";
import { createBudget } from "../io/budget";
import { parseClusterShards, type ShardMember, type ShardTopology } from "./cluster-topology";
import { mergeEventReads } from "../events/event-reads";
import type { LockWatch, LockWatchOptions } from "./lock-watch";
import type { IndexedState } from "../store/node-store";
import { NodeWatch } from "./node-watch";

/** How often the topology is read while every primary answers. */
const TOPOLOGY_INTERVAL_MS = 5_000;
/** How soon it is read again after a primary stopped answering (a failover may be under way). */
const TOPOLOGY_RETRY_MS = 1_000;
const SLOT_COUNT = 16_384;
/** How long sync() waits for the first topology read. */
const SYNC_TOPOLOGY_WAIT_MS = 5_000;

export interface ClusterWatchOptions extends LockWatchOptions {
  /** Keys per second each primary's watch may visit or read. */
  readonly budgetPerS: number;
  /** Value bytes per second each primary's reads may touch (budget.ts). */
  readonly readBytesPerS?: number;
}

/** A primary the index watches. */
export interface WatchedPrimary {
  readonly address: string;
  readonly client: Redis;
  readonly watch: NodeWatch;
  slotRanges: ReadonlyArray<readonly [number, number]>;
  replicas: readonly ShardMember[];
}

export class ClusterWatch implements LockWatch {
  readonly #node: ClusterNode;
  readonly #options: ClusterWatchOptions;
  readonly #primaries = new Map<string, WatchedPrimary>();
  /** Slot → the primary serving it, by the last topology read. */
  readonly #slotOwners: Array<WatchedPrimary | undefined> = new Array(SLOT_COUNT);
  #topologyAt: number | null = null;
  #topologyError: string | null = null;
  #timer: NodeJS.Timeout | undefined;
  #reading = false;
  #closed = false;

  constructor(node: ClusterNode, options: ClusterWatchOptions) {
    this.#node = node;
    this.#options = options;
    this.#schedule(0);
  }

  /** Every primary watched, in the order the topology lists them. */
  get primaries(): readonly WatchedPrimary[] {
    return [...this.#primaries.values()];
  }

  get topologyAt(): number | null {
    return this.#topologyAt;
  }

  /** Every primary is known and answers. */
  get reachable(): boolean {
    return (
      this.#topologyAt !== null &&
      this.#primaries.size > 0 &&
      this.primaries.every((primary) => primary.watch.reachable)
    );
  }

  /** Every primary is listed and followed. */
  get complete(): boolean {
    return this.reachable && this.primaries.every((primary) => primary.watch.complete);
  }

  get truncated(): boolean {
    return this.primaries.some((primary) => primary.watch.truncated);
  }

  get(key: string): IndexedState | undefined {
    for (const primary of this.#primaries.values()) {
      const state = primary.watch.get(key);
      if (state) return state;
    }
    return undefined;
  }

  /** What the node holds under `key`: its state, null (absent) or undefined (its primary is unreachable). */
  read(key: string): IndexedState | null | undefined {
    for (const primary of this.#primaries.values()) {
      if (!primary.watch.reachable) continue;
      const state = primary.watch.get(key);
      if (state) return state;
    }
    const owner = this.#slotOwners[clusterSlot(Buffer.from(key, "latin1"))];
    return owner?.watch.reachable ? null : undefined;
  }

  *keys(): Generator<string> {
    for (const primary of this.#primaries.values()) yield* primary.watch.keys();
  }

  /** Reads `key` on the primary serving its slot (none known: nothing to read). */
  async reread(key: string): Promise<void> {
    await this.#slotOwners[clusterSlot(Buffer.from(key, "latin1"))]?.watch.reread(key);
  }

  /** The node's index status: the least advanced of its primaries', lock keys summed. */
  status(): NodeIndex {
    const statuses = this.primaries.map((primary) => primary.watch.status());
    const modes = new Set(statuses.map((status) => status.mode));
    const mode: IndexMode =
      statuses.length === 0 || modes.has("down")
        ? "down"
        : modes.has("listing")
          ? "listing"
          : modes.has("polling")
            ? "polling"
            : "watching";
    const listings = statuses.flatMap((status) => (status.listing ? [status.listing] : []));
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    const totals = listings.map((listing) => listing.keysTotal);
    const keysTotal = totals.every((total) => total !== null) ? sum(totals as number[]) : null;
    const keysVisited = sum(listings.map((listing) => listing.keysVisited));
    const asOfs = statuses.map((status) => status.asOf);
    const listedAts = statuses.map((status) => status.listedAt);
    return {
      mode,
      reason:
        this.#topologyError ?? statuses.find((status) => status.reason !== null)?.reason ?? null,
      asOf: asOfs.includes(null) || asOfs.length === 0 ? null : Math.min(...(asOfs as number[])),
      listing:
        listings.length === 0
          ? null
          : {
              reason: listings[0]!.reason,
              startedAt: Math.min(...listings.map((listing) => listing.startedAt)),
              keysVisited,
              keysTotal,
              locksFound: sum(listings.map((listing) => listing.locksFound)),
              keysSkipped: sum(listings.map((listing) => listing.keysSkipped)),
              fraction:
                keysTotal !== null && keysTotal > 0
                  ? Math.min(0.99, keysVisited / keysTotal)
                  : null,
            },
      listedAt:
        listedAts.includes(null) || listedAts.length === 0
          ? null
          : Math.max(...(listedAts as number[])),
      listingMs: Math.max(0, ...statuses.map((status) => status.listingMs ?? 0)) || null,
      lockKeys: sum(statuses.map((status) => status.lockKeys)),
      truncated: statuses.some((status) => status.truncated),
      skippedKeys: sum(statuses.map((status) => status.skippedKeys)),
      budgetPerS: this.#options.budgetPerS,
      // The slowest primary says how fresh the node is.
      polling: statuses
        .map((status) => status.polling ?? null)
        .reduce<NodeIndex["polling"]>(
          (slowest, pace) =>
            pace && (!slowest || pace.changesWithinMs > slowest.changesWithinMs) ? pace : slowest,
          null,
        ),
      eventReads: mergeEventReads(statuses.flatMap((status) => status.eventReads ?? [])),
    };
  }

  sweep(nowMs: number): void {
    for (const primary of this.#primaries.values()) primary.watch.sweep(nowMs);
  }

  /** NodeWatch.sync on every primary, once the topology is known (waits for it a few seconds at most). */
  async sync(): Promise<void> {
    for (let waitedMs = 0; this.#topologyAt === null && waitedMs < SYNC_TOPOLOGY_WAIT_MS;) {
      await sleep(20);
      waitedMs += 20;
    }
    await Promise.all(this.primaries.map((primary) => primary.watch.sync()));
  }

  /** Reads the topology now (tests; the console reads it on its own every few seconds). */
  async refreshTopology(): Promise<void> {
    clearTimeout(this.#timer);
    await this.#readTopology();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await Promise.all(this.primaries.map((primary) => this.#drop(primary, false)));
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    if (!this.#closed) this.#timer = setTimeout(() => void this.#readTopology(), delayMs);
  }

  /** CLUSTER SHARDS from the first server that answers: a known primary, else the seed's client. */
  async #askTopology(): Promise<unknown> {
    const askers: Array<Redis | ClusterNode["client"]> = [
      ...this.primaries.filter((primary) => primary.watch.reachable).map((p) => p.client),
      this.#node.client,
    ];
    let lastError: unknown = new Error("no server of the cluster answered");
    for (const asker of askers) {
      try {
        return await asker.call("CLUSTER", "SHARDS");
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  async #readTopology(): Promise<void> {
    if (this.#reading || this.#closed) return;
    this.#reading = true;
    try {
      const shards = parseClusterShards(await this.#askTopology(), this.#node.tls);
      if (this.#closed) return;
      this.#apply(shards);
      this.#topologyAt = Date.now();
      this.#topologyError = null;
    } catch (error) {
      const message = redactText(error instanceof Error ? error.message : String(error));
      if (message !== this.#topologyError)
        logger.warn({ node: this.#node.address, error: message }, "cluster topology unreadable");
      this.#topologyError = `cluster topology unreadable: ${message}`;
    } finally {
      this.#reading = false;
      const healthy = this.#topologyError === null && this.reachable;
      this.#schedule(healthy ? TOPOLOGY_INTERVAL_MS : TOPOLOGY_RETRY_MS);
    }
  }

  #apply(shards: readonly ShardTopology[]): void {
    const current = new Map<string, ShardTopology>();
    for (const shard of shards)
      if (shard.primary && shard.slotRanges.length > 0) current.set(shard.primary.address, shard);
    const added = [...current.keys()].filter((address) => !this.#primaries.has(address));
    const removed = this.primaries.filter((primary) => !current.has(primary.address));
    if (added.length > 0 || removed.length > 0) {
      // What changed on the node while the topology moved is unknown until the new primaries are listed.
      if (this.#topologyAt !== null) this.#options.onGap?.(Date.now());
      logger.info(
        { node: this.#node.address, added, removed: removed.map((primary) => primary.address) },
        "cluster topology changed",
      );
    }
    for (const address of added) {
      const { primary } = current.get(address)!;
      const client = this.#node.connectServer(primary!.host, primary!.port);
      const watch = new NodeWatch({
        ...this.#options,
        node: { address, client, inCluster: true },
        budget: createBudget(this.#options.budgetPerS, this.#options.readBytesPerS),
        onReachability: () => {
          this.#options.onReachability();
          // A primary that stops answering may be failing over: look at the topology again soon.
          if (!watch.reachable) this.#schedule(TOPOLOGY_RETRY_MS);
        },
      });
      this.#primaries.set(address, { address, client, watch, slotRanges: [], replicas: [] });
    }
    this.#slotOwners.fill(undefined);
    for (const [address, shard] of current) {
      const primary = this.#primaries.get(address)!;
      primary.slotRanges = shard.slotRanges;
      primary.replicas = shard.replicas;
      for (const [start, end] of shard.slotRanges)
        for (let slot = start; slot <= end && slot < SLOT_COUNT; slot += 1)
          this.#slotOwners[slot] = primary;
    }
    for (const primary of removed) void this.#drop(primary, true);
    if (added.length > 0 || removed.length > 0) this.#options.onReachability();
  }

  /** Stops watching a primary; its keys leave the node's view (`announce`: the index is told of each). */
  async #drop(primary: WatchedPrimary, announce: boolean): Promise<void> {
    this.#primaries.delete(primary.address);
    await primary.watch.close();
    primary.client.disconnect();
    if (announce) for (const key of primary.watch.keys()) this.#options.onChange(key, null);
  }
}
