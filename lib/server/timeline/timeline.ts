import "server-only";
/**
 * Per-lock transitions folded from the live index's per-node changes: a value reaching a majority
 * is an acquisition; the holder's value leaving a majority is a release, an expiry or a
 * force-release, told apart by the keyspace events that removed it (del / expired / evicted) or,
 * when a node's removal came without one (polling, a delete and a new value within one read), by
 * whether the hold's validity had run out. Transitions are folded only while the index is whole
 * (every reachable node listed and followed); a stretch when it is not is recorded as a gap, never
 * as quiet, and the holds are then re-read from the index without emitting anything.
 */
import type { LockState, OwnerInfo } from "@/lib/api";
import {
  EPISODE_MIN_MS,
  makeTransition,
  type HistoryHorizon,
  type Transition,
  type TransitionKind,
} from "@/lib/api/timeline";
import type { IndexObserver, Reads } from "../locks/rows/live-index";
import type { IndexedState, RemovalCause } from "../locks/watch/node-store";
import { ownerOfValue } from "../locks/read/ownership";
import { describeLatin1Key } from "../locks/read/key-name";
import { History } from "./history";

/** What the timeline needs of the live index. */
export interface IndexView {
  readonly complete: boolean;
  readonly quorumSize: number;
  readonly nodeIds: readonly string[];
  /** The resources the index holds, in byte order from the first ≥ `low`. */
  keysFrom(low: string): Iterable<string>;
  /** What each node holds under `key`. */
  reads(key: string): Reads;
}

export interface TimelineOptions {
  /** Transitions kept (CONSOLE_HISTORY_MAX). */
  readonly capacity: number;
  /** Called for every transition (metrics, a durable store). */
  readonly onTransition?: (transition: Transition) => void;
  /** Holds too short to be read, counted per lock (see brief()). */
  readonly onBriefHolds?: (holds: number) => void;
  /** Called on every tick while the index is whole: history is complete up to `nowMs`. */
  readonly onComplete?: (nowMs: number) => void;
  readonly durable?: boolean;
}

/** An expiry that moved later by less than this is read jitter, not an extension. */
const EXTENSION_MIN_MS = 250;
/** A force-release mark is matched to a disappearing value within this long. */
const FORCE_MARK_TTL_MS = 30_000;
/** A hold that ran out is remembered this long, to flag the next holder as a possible overlap. */
const EXPIRED_MEMORY_MS = 60 * 60_000;
const PRUNE_INTERVAL_MS = 60_000;
/** Brief holds reported by the nodes are gathered this long: their reads land at slightly different times. */
const BRIEF_WINDOW_MS = 500;

interface Hold {
  readonly value: string;
  readonly owner: OwnerInfo | null;
  /** When the hold began: its owner's acquiredAt, else when it reached a majority. */
  readonly sinceMs: number;
  /** The quorum-th latest expiry of the value (console clock); Infinity without a TTL. */
  expiresAtMs: number;
  waiters: number;
  /** Per node, why it lost the value, once it did. */
  readonly causes: Array<RemovalCause | undefined>;
}

interface Episode {
  readonly kind: "partial" | "conflict";
  readonly sinceMs: number;
  reported: boolean;
}

type Listener = (transition: Transition) => void;

export class Timeline implements IndexObserver {
  readonly #index: IndexView;
  readonly #options: TimelineOptions;
  readonly #history: History;
  readonly #holds = new Map<string, Hold>();
  readonly #episodes = new Map<string, Episode>();
  readonly #expired = new Map<string, { value: string; owner: OwnerInfo | null; at: number }>();
  readonly #forceMarks = new Map<
    string,
    { by: string; reason: string | null; atMs: number; value: string | null }
  >();
  readonly #listeners = new Set<Listener>();
  /** Per lock: brief holds per node since `sinceMs`, until the window closes. */
  readonly #brief = new Map<string, { sinceMs: number; holds: number[] }>();
  #nextId = 1;
  /** Transitions folded in this process (restored ones not counted). */
  #emitted = 0;
  #complete = false;
  #gapSinceMs: number | null = null;
  #completeSinceMs: number | null = null;
  #basis: HistoryHorizon["basis"] = "index-listed";
  #lastPruneMs = 0;

  constructor(index: IndexView, options: TimelineOptions) {
    this.#index = index;
    this.#options = options;
    this.#history = new History(options.capacity);
  }

  /** Subscribes to every new transition; returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Newest first. */
  transitions(
    limit: number,
    keep: (transition: Transition) => boolean = () => true,
    afterId?: number,
  ): Transition[] {
    return this.#history.newest(limit, keep, afterId);
  }

  activity(resource: string, nowMs: number) {
    return this.#history.activity(resource, nowMs);
  }

  horizon(): HistoryHorizon {
    const oldest = this.#history.oldest;
    const full = this.#history.size >= this.#history.capacity;
    const retentionSince = full && oldest ? oldest.at : null;
    const since =
      this.#completeSinceMs === null
        ? null
        : retentionSince !== null && retentionSince > this.#completeSinceMs
          ? retentionSince
          : this.#completeSinceMs;
    return {
      completeSince: since,
      basis: since !== null && since === retentionSince ? "retention" : this.#basis,
      gapOpen: !this.#complete,
      capacity: this.#history.capacity,
      retained: this.#history.size,
      durable: this.#options.durable ?? false,
    };
  }

  /**
   * Transitions loaded from a durable store, oldest first: kept as history (ids renumbered in this
   * process), with a gap from the store's last one to now — the console was not watching then.
   */
  restore(stored: readonly Transition[], storeAsOfMs: number | null, nowMs = Date.now()): void {
    for (const transition of stored) this.#history.push({ ...transition, id: this.#nextId++ });
    const first = stored[0];
    if (first) {
      this.#completeSinceMs = first.at;
      this.#basis = "store";
      this.#gapSinceMs = storeAsOfMs ?? stored.at(-1)!.at;
    } else {
      this.#gapSinceMs = nowMs;
    }
  }

  /** A force-release by `by` is about to delete `resource` (this console's action). */
  markForceRelease(
    resource: string,
    by: string,
    reason: string | null,
    value: string | null,
  ): void {
    this.#forceMarks.set(resource, { by, reason, atMs: Date.now(), value });
  }

  /** Node `nodeIndex` changed for `key` (its removal `cause` when it lost the key); `reads` and `state` are after it. */
  observe(
    key: string,
    reads: Reads,
    state: LockState | null,
    nodeIndex: number,
    cause: RemovalCause | undefined,
    nowMs = Date.now(),
  ): void {
    if (!this.#checkComplete(nowMs)) return;
    const hold = this.#holds.get(key);
    if (
      hold &&
      nodeIndex >= 0 &&
      reads[nodeIndex]?.value !== hold.value &&
      hold.causes[nodeIndex] === undefined
    )
      hold.causes[nodeIndex] = cause ?? "unknown";
    if (cause === "evicted") {
      this.#emit({
        kind: "evicted",
        resource: key,
        at: nowMs,
        value: hold?.value ?? null,
        owner: hold?.owner ?? null,
        nodeIds: [this.#index.nodeIds[nodeIndex]!],
      });
    }
    this.#fold(key, reads, state, nowMs);
  }

  /** A node is relisted after a gap: what changed there since `sinceMs` is unknown until it ends. */
  gap(sinceMs: number): void {
    if (this.#complete && this.#emitted === 0 && this.#basis === "index-listed") {
      // Nothing recorded yet (a node that connected after the others is listed at start): history
      // simply begins once it is whole, rather than with a gap.
      this.#complete = false;
      this.#completeSinceMs = null;
      return;
    }
    if (this.#complete) {
      this.#complete = false;
      this.#gapSinceMs = sinceMs;
    } else if (this.#gapSinceMs !== null && sinceMs < this.#gapSinceMs) {
      this.#gapSinceMs = sinceMs;
    }
  }

  /**
   * `holds` values came and went on node `nodeIndex` between two reads of `key` (a lock taken and
   * released within the ~10 ms before the console reads the key). Not shown as transitions (their
   * values and owners were never read), but counted as changes of hands: a lock counts as taken as
   * many times as a majority of nodes saw such a value (the quorum-th largest count).
   */
  brief(key: string, nodeIndex: number, holds: number, nowMs = Date.now()): void {
    if (!this.#complete || nodeIndex < 0) return;
    let entry = this.#brief.get(key);
    if (!entry) {
      entry = { sinceMs: nowMs, holds: this.#index.nodeIds.map(() => 0) };
      this.#brief.set(key, entry);
    }
    entry.holds[nodeIndex]! += holds;
  }

  #flushBrief(nowMs: number): void {
    for (const [key, entry] of this.#brief) {
      if (nowMs - entry.sinceMs < BRIEF_WINDOW_MS) continue;
      this.#brief.delete(key);
      const counts = [...entry.holds].sort((a, b) => b - a);
      const holds = counts[this.#index.quorumSize - 1] ?? 0;
      if (holds === 0) continue;
      this.#history.countBriefHolds(displayName(key), nowMs, holds);
      this.#options.onBriefHolds?.(holds);
    }
  }

  /** Called every ~100 ms: gap bookkeeping, episodes that lasted, pruning. */
  tick(nowMs = Date.now()): void {
    if (!this.#checkComplete(nowMs)) {
      this.#brief.clear();
      return;
    }
    this.#options.onComplete?.(nowMs);
    this.#flushBrief(nowMs);
    for (const [key, episode] of this.#episodes) {
      if (episode.reported || nowMs - episode.sinceMs < EPISODE_MIN_MS) continue;
      episode.reported = true;
      this.#emit({ kind: episode.kind, resource: key, at: nowMs, since: episode.sinceMs });
    }
    if (nowMs - this.#lastPruneMs >= PRUNE_INTERVAL_MS) {
      this.#lastPruneMs = nowMs;
      this.#history.pruneActivity(nowMs);
      for (const [key, expired] of this.#expired)
        if (nowMs - expired.at > EXPIRED_MEMORY_MS) this.#expired.delete(key);
      for (const [key, mark] of this.#forceMarks)
        if (nowMs - mark.atMs > FORCE_MARK_TTL_MS) this.#forceMarks.delete(key);
    }
  }

  /**
   * Whether transitions can be folded now. On the index becoming whole, the holds are re-read from
   * it silently and the stretch before is recorded as a gap (or, the first time, starts history).
   */
  #checkComplete(nowMs: number): boolean {
    const complete = this.#index.complete;
    if (complete === this.#complete) return complete;
    this.#complete = complete;
    if (!complete) {
      this.#gapSinceMs ??= nowMs;
      return false;
    }
    this.#reseed(nowMs);
    if (this.#completeSinceMs === null) {
      this.#completeSinceMs = nowMs;
      this.#basis = "index-listed";
    } else if (this.#gapSinceMs !== null) {
      // A relist, or (restored from a store) the time no console was watching.
      this.#emit({ kind: "gap", resource: "", at: nowMs, since: this.#gapSinceMs });
    }
    this.#gapSinceMs = null;
    return true;
  }

  #reseed(nowMs: number): void {
    this.#holds.clear();
    this.#episodes.clear();
    for (const key of this.#index.keysFrom("")) {
      const reads = this.#index.reads(key);
      const majority = this.#majority(reads);
      if (majority) this.#holds.set(key, this.#newHold(majority, reads, nowMs));
    }
  }

  #fold(key: string, reads: Reads, state: LockState | null, nowMs: number): void {
    const quorumSize = this.#index.quorumSize;
    let hold = this.#holds.get(key);
    if (hold) {
      let holders = 0;
      let unreachable = 0;
      for (const read of reads) {
        if (read === undefined) unreachable += 1;
        else if (read?.value === hold.value) holders += 1;
      }
      if (holders + unreachable < quorumSize) {
        this.#end(key, hold, nowMs);
        hold = undefined;
      } else {
        hold.waiters = Math.max(hold.waiters, waitersOf(reads));
        const expiresAtMs = quorumExpiry(reads, hold.value, quorumSize);
        if (holders >= quorumSize && expiresAtMs > hold.expiresAtMs + EXTENSION_MIN_MS) {
          hold.expiresAtMs = expiresAtMs;
          this.#emit({
            kind: "extended",
            resource: key,
            at: nowMs,
            value: hold.value,
            owner: hold.owner,
            heldMs: nowMs - hold.sinceMs,
            waiters: hold.waiters,
          });
        }
      }
    }
    if (!hold) {
      const majority = this.#majority(reads);
      if (majority) {
        const next = this.#newHold(majority, reads, nowMs);
        this.#holds.set(key, next);
        const previous = this.#expired.get(key);
        this.#expired.delete(key);
        this.#emit({
          kind: "acquired",
          resource: key,
          at: nowMs,
          value: next.value,
          owner: next.owner,
          waiters: next.waiters,
          afterExpired:
            previous && previous.value !== next.value
              ? { value: previous.value, owner: previous.owner, expiredAt: previous.at }
              : null,
        });
      }
    }
    this.#trackEpisode(key, state, nowMs);
  }

  #end(key: string, hold: Hold, nowMs: number): void {
    this.#holds.delete(key);
    const mark = this.#forceMarks.get(key);
    let kind: TransitionKind;
    let endMs = nowMs;
    if (mark && (mark.value === null || mark.value === hold.value)) {
      this.#forceMarks.delete(key);
      kind = "force-released";
    } else {
      let expired = 0;
      let deleted = 0;
      for (const cause of hold.causes) {
        // A removal without its event: only a delete removes a value before its validity ends.
        const known =
          cause === "unknown" ? (hold.expiresAtMs <= nowMs ? "expired" : "deleted") : cause;
        if (known === "expired") expired += 1;
        else if (known === "deleted") deleted += 1;
      }
      kind = expired > 0 && expired >= deleted ? "expired" : "released";
      if (kind === "expired" && Number.isFinite(hold.expiresAtMs))
        endMs = Math.min(nowMs, hold.expiresAtMs);
    }
    if (kind === "expired")
      this.#expired.set(key, { value: hold.value, owner: hold.owner, at: endMs });
    this.#emit({
      kind,
      resource: key,
      at: nowMs,
      value: hold.value,
      owner: hold.owner,
      heldMs: Math.max(0, endMs - hold.sinceMs),
      waiters: hold.waiters,
      by: kind === "force-released" ? (mark?.by ?? null) : null,
      reason: kind === "force-released" ? (mark?.reason ?? null) : null,
    });
  }

  #trackEpisode(key: string, state: LockState | null, nowMs: number): void {
    if (state !== "partial" && state !== "conflict") {
      this.#episodes.delete(key);
      return;
    }
    const episode = this.#episodes.get(key);
    if (episode?.kind === state) return;
    this.#episodes.set(key, { kind: state, sinceMs: nowMs, reported: false });
  }

  /** The state held by a majority of nodes, if any. */
  #majority(reads: Reads): IndexedState | null {
    const quorumSize = this.#index.quorumSize;
    for (const read of reads) {
      if (!read) continue;
      let count = 0;
      for (const other of reads) if (other?.value === read.value) count += 1;
      if (count >= quorumSize) return read;
    }
    return null;
  }

  #newHold(state: IndexedState, reads: Reads, nowMs: number): Hold {
    const owner = state.legacyOwner ?? ownerOfValue(state.value);
    return {
      value: state.value,
      owner,
      sinceMs: owner?.acquiredAt ?? nowMs,
      expiresAtMs: quorumExpiry(reads, state.value, this.#index.quorumSize),
      waiters: waitersOf(reads),
      causes: reads.map(() => undefined),
    };
  }

  #emit(
    fields: Pick<Transition, "kind" | "resource" | "at"> & Partial<Omit<Transition, "id">>,
  ): void {
    const transition = makeTransition({
      ...fields,
      id: this.#nextId++,
      resource: displayName(fields.resource),
    });
    if (transition.kind === "partial" || transition.kind === "conflict") {
      const reads = this.#index.reads(fields.resource);
      transition.nodeIds = this.#index.nodeIds.filter((_, index) => reads[index]);
    }
    this.#emitted += 1;
    this.#history.push(transition);
    this.#options.onTransition?.(transition);
    for (const listener of this.#listeners) listener(transition);
  }
}

/** The resource name of a key (latin1 of its bytes) as the API shows it: its UTF-8 text. */
const displayName = (key: string): string => describeLatin1Key(key).resource;

function waitersOf(reads: Reads): number {
  let waiters = 0;
  for (const read of reads) waiters = Math.max(waiters, read?.waiters?.count ?? 0);
  return waiters;
}

/** The quorum-th latest expiry among the nodes holding `value`; Infinity for no TTL; 0 if too few. */
function quorumExpiry(reads: Reads, value: string, quorumSize: number): number {
  const expiries: number[] = [];
  for (const read of reads)
    if (read?.value === value)
      expiries.push(read.expiresAtMs < 0 ? Number.POSITIVE_INFINITY : read.expiresAtMs);
  if (expiries.length < quorumSize) return 0;
  expiries.sort((a, b) => b - a);
  return expiries[quorumSize - 1]!;
}
