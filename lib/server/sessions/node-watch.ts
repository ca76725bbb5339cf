import "server-only";
/**
 * What liveness.ts needs to know continuously, not only at the moment of a decision: since when
 * each server's idle-client `timeout` has been 0, since when the console's connection to it has been
 * up, and (a cluster node) since when each slot has been served by the same primary. A connection
 * closed after the heartbeat was written proves a crash only if nothing else could have closed it
 * since, and a heartbeat replicated by a failover names a connection of the dead primary.
 *
 * Each watched server is asked `CONFIG GET timeout` once per WATCH_EVERY_MS (a cluster node also
 * `CLUSTER SLOTS` once), shared by every session; a decision asks again (observeTimeout) so that it
 * never trusts a value older than its own read. A non-zero or failed read, and a lost connection,
 * restart the "since". Blind spot: a change to non-zero and back between two reads goes unseen.
 */
import type { Cluster, Redis } from "ioredis";
import type { ConsoleNode } from "../node-registry";
import { nextSince } from "./liveness";

/** How often each watched server's `timeout` (and a cluster node's slot map) is read. */
const WATCH_EVERY_MS = 1_000;

const CLUSTER_SLOTS = 16_384;

interface ServerWatch {
  /** When the console's connection became ready (null: not ready). */
  readySinceMs: number | null;
  /** Since when `timeout` has been read 0 on every read (null: not 0, unknown). */
  timeoutZeroSinceMs: number | null;
  /** Bumped on every lost connection: a reply from before it is stale. */
  generation: number;
}

const servers = new WeakMap<Redis, ServerWatch>();

async function readTimeoutS(server: Redis): Promise<number | null> {
  try {
    const reply = (await server.config("GET", "timeout")) as unknown;
    // ["timeout", "<s>"]; an empty list when the parameter is unknown (renamed, an ACL).
    const value = Array.isArray(reply) && reply[0] === "timeout" ? Number(reply[1]) : NaN;
    return Number.isInteger(value) && value >= 0 ? value : null;
  } catch {
    return null;
  }
}

/** Starts watching `server` (once; stops when its client ends) and returns its watch. */
function watchServer(server: Redis): ServerWatch {
  const known = servers.get(server);
  if (known) return known;
  const watch: ServerWatch = {
    readySinceMs: server.status === "ready" ? Date.now() : null,
    timeoutZeroSinceMs: null,
    generation: 0,
  };
  servers.set(server, watch);
  let inFlight = false;
  const observe = () => {
    if (inFlight) return;
    inFlight = true;
    void observeTimeout(server).finally(() => (inFlight = false));
  };
  server.on("ready", () => {
    watch.readySinceMs = Date.now();
    observe();
  });
  server.on("close", () => {
    watch.generation += 1;
    watch.readySinceMs = null;
    watch.timeoutZeroSinceMs = null;
  });
  const timer = setInterval(observe, WATCH_EVERY_MS);
  timer.unref();
  server.once("end", () => clearInterval(timer));
  queueMicrotask(observe);
  return watch;
}

/** Reads `timeout` now; resolves with since when (console clock) it has been 0, or null. */
export async function observeTimeout(server: Redis): Promise<number | null> {
  const watch = watchServer(server);
  const generation = watch.generation;
  // Sent whatever the status: a cluster's servers connect lazily, on their first command.
  const timeoutS = await readTimeoutS(server);
  if (watch.generation !== generation) return null;
  watch.timeoutZeroSinceMs = nextSince(
    watch.timeoutZeroSinceMs,
    timeoutS === 0 && watch.readySinceMs !== null,
    Date.now(),
  );
  return watch.timeoutZeroSinceMs;
}

/** Since when (console clock) the console's connection to `server` has been up, or null. */
export function connectedSinceMs(server: Redis): number | null {
  return watchServer(server).readySinceMs;
}

interface SlotWatch {
  /** Per slot: the id of the primary serving it, as CLUSTER SLOTS last said. */
  readonly owners: Array<string | undefined>;
  /** Per slot: since when (console clock) that primary has served it (NaN: unknown). */
  readonly sinceMs: Float64Array;
}

const clusters = new WeakMap<Cluster, SlotWatch>();

type SlotRange = [number, number, [string, number, string?, ...unknown[]], ...unknown[]];

async function observeSlots(cluster: Cluster, watch: SlotWatch): Promise<void> {
  let ranges: SlotRange[] | null;
  try {
    ranges = (await cluster.cluster("SLOTS")) as unknown as SlotRange[];
  } catch {
    ranges = null;
  }
  const nowMs = Date.now();
  const seen = new Array<string | undefined>(CLUSTER_SLOTS);
  for (const [from, to, [, , id]] of ranges ?? []) seen.fill(id, from, to + 1);
  for (let slot = 0; slot < CLUSTER_SLOTS; slot += 1) {
    if (seen[slot] !== watch.owners[slot]) watch.sinceMs[slot] = nowMs;
    watch.owners[slot] = seen[slot];
  }
  // Each primary's `timeout` is watched too: a session key lives on one of them.
  for (const primary of cluster.nodes("master")) watchServer(primary);
}

/** Starts watching a cluster node's slot map (once; stops when its client ends). */
export function watchCluster(cluster: Cluster): SlotWatch {
  const known = clusters.get(cluster);
  if (known) return known;
  const watch: SlotWatch = {
    owners: new Array<string | undefined>(CLUSTER_SLOTS),
    sinceMs: new Float64Array(CLUSTER_SLOTS).fill(NaN),
  };
  clusters.set(cluster, watch);
  let inFlight = false;
  const observe = () => {
    if (inFlight) return;
    inFlight = true;
    void observeSlots(cluster, watch).finally(() => (inFlight = false));
  };
  observe();
  cluster.on("ready", observe);
  const timer = setInterval(observe, WATCH_EVERY_MS);
  timer.unref();
  cluster.once("end", () => clearInterval(timer));
  return watch;
}

/**
 * Since when (console clock) primary `primaryId` has served `slot` by the watch, or null when the
 * watch names another primary (a failover it has not seen yet) or none.
 */
export function slotServedSinceMs(
  cluster: Cluster,
  slot: number,
  primaryId: string,
): number | null {
  const watch = watchCluster(cluster);
  const sinceMs = watch.sinceMs[slot]!;
  return watch.owners[slot] === primaryId && !Number.isNaN(sinceMs) ? sinceMs : null;
}

/**
 * Starts watching every lock node, from the console's start: a decision can prove "gone" only for
 * a heartbeat written after its node's watch began (a read starts a node's watch too).
 */
export function watchNodes(nodes: readonly ConsoleNode[]): void {
  for (const node of nodes)
    if (node.kind === "cluster") watchCluster(node.client);
    else void observeTimeout(node.client);
}
