import "server-only";
/**
 * Per-lock transitions folded from the live index's per-node changes: a value reaching a majority
 * is an acquisition; the holder's value leaving a majority is a release, an expiry or a
 * force-release (the rules: hold-fold.ts). A force-release's tombstone is a reservation, not a
 * holder: being released, then acknowledged, ended or lifted (reservation.ts). An expiry waits for
 * a read of the holder's session, which says why (session-checks.ts, expiry-cause.ts).
 * Transitions are folded only while the index is whole; a stretch when it is not is recorded as a
 * gap, never as quiet, and the holds are then re-read from the index without emitting anything
 * (coverage.ts). Partial and conflict episodes (episodes.ts) and brief holds (brief-holds.ts) are
 * counted beside. This file keeps the holds and wires those rules to the index, the history and
 * the listeners; it stays one file of about 300 lines because it is the one place the holds are
 * changed, and every rule it applies lives, tested as a table, in the files named above.
 */
import type { LockState } from "@/lib/api";
import { makeTransition, type HistoryHorizon, type Transition } from "@/lib/api/timeline";
import type { IndexObserver, Reads } from "../locks/rows/live-index";
import type { RemovalCause } from "../locks/watch/node-store";
import { describeLatin1Key } from "../locks/read/key-name";
import { sessionOfValue } from "../locks/read/ownership";
import { KeyWalk } from "../locks/rows/key-walk";
import { standingOf, waitersOf } from "../locks/rows/quorum";
import { Coverage } from "./coverage";
import { Episodes } from "./episodes";
import { History } from "./history";
import { BriefHolds } from "./brief-holds";
import { extendedTo, lossCause, majorityHold, type ForceMark, type Hold } from "./hold-fold";
import { endOf, extendedOf, startOf, type Ended, type ExpiredHold } from "./hold-transitions";
import { SessionChecks, type SessionReader, type TransitionFields } from "./session-checks";

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
  /** Reads an expired holder's session on every lock node (read-session.ts), bounded by the node deadline. */
  readonly readSession: SessionReader;
  /** Sessions read at once at most; an expiry beyond says "not-checked". @default 8 */
  readonly maxSessionChecks?: number;
}

/** A force-release mark is matched to a disappearing value within this long. */
const FORCE_MARK_TTL_MS = 30_000;
/** A hold that ran out is remembered this long, to flag the next holder as a possible overlap. */
const EXPIRED_MEMORY_MS = 60 * 60_000;
const PRUNE_INTERVAL_MS = 60_000;

type Listener = (transition: Transition) => void;

export class Timeline implements IndexObserver {
  readonly #index: IndexView;
  readonly #options: TimelineOptions;
  readonly #history: History;
  readonly #holds = new Map<string, Hold>();
  readonly #episodes = new Episodes();
  readonly #expired = new Map<string, ExpiredHold>();
  readonly #forceMarks = new Map<string, ForceMark>();
  readonly #listeners = new Set<Listener>();
  readonly #brief = new BriefHolds();
  readonly #coverage = new Coverage();
  /** Re-reads the holds from the index once it is whole again, in slices (key-walk.ts). */
  readonly #reseeding = new KeyWalk();
  readonly #checks: SessionChecks;
  /** Ids from this process's start time × 1000: above any id of an earlier run (see transitionSchema.id). */
  #nextId = Date.now() * 1_000;
  /** Transitions folded in this process (restored ones not counted). */
  #emitted = 0;
  #lastPruneMs = 0;

  constructor(index: IndexView, options: TimelineOptions) {
    this.#index = index;
    this.#options = options;
    this.#history = new History(options.capacity);
    this.#checks = new SessionChecks(
      options.readSession,
      (fields) => this.#publish(fields),
      options.maxSessionChecks,
    );
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
    return this.#coverage.horizon(this.#history, this.#options.durable ?? false);
  }

  /**
   * Transitions loaded from a durable store, oldest first: kept as history with their ids (a client
   * resuming after one of them gets what followed it; an id out of order is renumbered after the
   * one before), with a gap from the store's last one to now — the console was not watching then.
   */
  restore(stored: readonly Transition[], storeAsOfMs: number | null, nowMs = Date.now()): void {
    let previous = 0;
    for (const transition of stored) {
      const kept =
        Number.isSafeInteger(transition.id) &&
        transition.id > previous &&
        transition.id < this.#nextId;
      previous = kept ? transition.id : previous + 1;
      this.#history.push({ ...transition, id: previous });
    }
    this.#nextId = Math.max(this.#nextId, previous + 1);
    const first = stored[0];
    this.#coverage.restored(
      first ? first.at : null,
      first ? (storeAsOfMs ?? stored.at(-1)!.at) : nowMs,
    );
  }

  /** A force-release by `by` is about to delete or tombstone `resource` (this console's action). */
  markForceRelease(
    resource: string,
    by: string,
    reason: string | null,
    value: string | null,
    auditId: string | null = null,
  ): void {
    this.#forceMarks.set(resource, { by, reason, atMs: Date.now(), value, auditId });
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
    const loss = hold && lossCause(hold, reads[nodeIndex], nodeIndex, cause);
    if (loss) hold.causes[nodeIndex] = loss;
    // An eviction is a transition of its own, whatever the hold: the lock's safety is gone there.
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
    // Not re-read yet since the index became whole: the walk will read what it holds then.
    if (this.#reseeding.reached(key)) this.#fold(key, reads, state, nowMs);
  }

  /** A node is relisted after a gap: what changed there since `sinceMs` is unknown until it ends. */
  gap(sinceMs: number): void {
    this.#coverage.gap(sinceMs, this.#emitted > 0);
  }

  /**
   * `holds` values came and went on node `nodeIndex` between two reads of `key` (a lock taken and
   * released within the ~10 ms before the console reads the key). Not shown as transitions (their
   * values and owners were never read), but counted as changes of hands: a lock counts as taken as
   * many times as a majority of nodes saw such a value (the quorum-th largest count).
   */
  brief(key: string, nodeIndex: number, holds: number, nowMs = Date.now()): void {
    if (!this.#coverage.complete || nodeIndex < 0) return;
    this.#brief.add(key, nodeIndex, holds, this.#index.nodeIds.length, nowMs);
  }

  /** Called every ~100 ms: session reads due, gap bookkeeping, episodes that lasted, pruning. */
  tick(nowMs = Date.now()): void {
    this.#checks.tick(nowMs);
    if (!this.#checkComplete(nowMs)) {
      this.#brief.clear();
      return;
    }
    this.#options.onComplete?.(nowMs);
    for (const [key, holds] of this.#brief.close(nowMs, this.#index.quorumSize)) {
      this.#history.countBriefHolds(displayName(key), nowMs, holds);
      this.#options.onBriefHolds?.(holds);
    }
    for (const [key, episode] of this.#episodes.due(nowMs))
      this.#emit({ kind: episode.kind, resource: key, at: nowMs, since: episode.sinceMs });
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
    const step = this.#coverage.check(this.#index.complete, nowMs);
    if (step.kind === "whole") {
      this.#reseed(nowMs);
      if (step.gapSinceMs !== null)
        this.#emit({ kind: "gap", resource: "", at: nowMs, since: step.gapSinceMs });
    }
    return this.#coverage.complete;
  }

  /** Re-reads every hold from the index, without emitting: in slices, as new changes keep coming. */
  #reseed(nowMs: number): void {
    this.#holds.clear();
    this.#episodes.clear();
    this.#reseeding.start(
      (low) => this.#index.keysFrom(low),
      (key) => {
        const hold = majorityHold(this.#index.reads(key), this.#index.quorumSize, nowMs);
        if (hold) this.#holds.set(key, hold);
      },
    );
  }

  #fold(key: string, reads: Reads, state: LockState | null, nowMs: number): void {
    const quorumSize = this.#index.quorumSize;
    let hold = this.#holds.get(key);
    const standing = hold && standingOf(reads, hold.value, quorumSize);
    let ended: Ended | null = null;
    if (hold && standing === "lost") {
      ended = this.#end(key, hold, reads, nowMs);
      hold = undefined;
    } else if (hold) {
      hold.waiters = Math.max(hold.waiters, waitersOf(reads).count);
      const expiresAtMs = standing === "majority" ? extendedTo(hold, reads, quorumSize) : null;
      // Nobody extends a tombstone: a later expiry there is read jitter.
      if (expiresAtMs !== null && !hold.tombstone) {
        hold.expiresAtMs = expiresAtMs;
        this.#emit(extendedOf(key, hold, nowMs));
      }
    }
    const next = hold ? null : majorityHold(reads, quorumSize, nowMs);
    if (next) {
      const started = startOf(key, next, ended, this.#expired.get(key), nowMs);
      // A tombstone is no new holder: the flag waits for the next acquisition.
      if (!next.tombstone) this.#expired.delete(key);
      this.#holds.set(key, started.hold);
      this.#emit(started.fields);
    }
    this.#episodes.track(key, state, nowMs);
  }

  #end(key: string, hold: Hold, reads: Reads, nowMs: number): Ended {
    this.#holds.delete(key);
    const ended = endOf(key, hold, this.#forceMarks.get(key), reads, nowMs);
    if (ended.markUsed) this.#forceMarks.delete(key);
    if (ended.fields.kind !== "expired") {
      this.#emit(ended.fields);
      return ended;
    }
    this.#expired.set(key, { value: hold.value, owner: hold.owner, at: ended.endMs });
    const evictedOn = this.#index.nodeIds.filter((_, node) => hold.causes[node] === "evicted");
    const check = { sessionId: sessionOfValue(hold.value), endMs: ended.endMs, evictedOn };
    this.#checks.expired(key, ended.fields, check, nowMs);
    return ended;
  }

  /** Emits now, or after the lock's expiry that waits for its holder's session to be read. */
  #emit(fields: TransitionFields): void {
    if (fields.kind === "partial" || fields.kind === "conflict") {
      const reads = this.#index.reads(fields.resource);
      fields = { ...fields, nodeIds: this.#index.nodeIds.filter((_, index) => reads[index]) };
    }
    this.#checks.emit(fields.resource, fields);
  }

  #publish(fields: TransitionFields): void {
    const named = describeLatin1Key(fields.resource);
    const transition = makeTransition({
      ...fields,
      id: this.#nextId++,
      resource: named.resource,
      resourceBase64: named.resourceBase64 ?? null,
    });
    this.#emitted += 1;
    this.#history.push(transition);
    this.#options.onTransition?.(transition);
    for (const listener of this.#listeners) listener(transition);
  }
}

/** The resource name of a key (latin1 of its bytes) as the API shows it: its UTF-8 text. */
const displayName = (key: string): string => describeLatin1Key(key).resource;
