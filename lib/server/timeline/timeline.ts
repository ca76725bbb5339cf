import "server-only";
/**
 * Over 300 lines, one job: the wiring of the fold (index handler in, history and streams out); each
 * rule it applies lives in a pure module of its own, named below.
 * Per-lock transitions folded from the live index's per-node changes: a value reaching a majority
 * is an acquisition; the holder's value leaving a majority is a release, an expiry or a
 * force-release (the rules: hold-fold.ts). A force-release's tombstone is a reservation, not a
 * holder: being released, then acknowledged, ended or lifted (reservation.ts). An acquisition after
 * a hold or reservation that ended unconfirmed is flagged as a possible overlap (overlap.ts). An
 * expiry waits for a read of the holder's session, which says why (session-checks.ts,
 * expiry-cause.ts).
 * Transitions are folded only while the index is whole; a stretch when it is not is recorded as a
 * gap, never as quiet, and the holds are then re-read from the index in slices without emitting
 * anything (coverage.ts, reseed.ts). Partial and conflict episodes (episodes.ts) and brief holds
 * (brief-holds.ts) are counted beside. This file keeps the holds and wires those rules to the
 * index; it stays one file (under 300 lines) because it is the one place the holds are changed,
 * and every rule it applies lives, tested as a table, in the files named above. What is not the
 * fold lives beside it: the force-release marks it consults (force-marks.ts), the re-read that
 * refills the holds it hands over when the index is whole again, and leaves it the keys already
 * read (reseed.ts), and numbering, keeping and handing on what it emits, with a state store's
 * transitions restored at start (transition-log.ts).
 */
import type { HistoryHorizon, LockState, Transition } from "@/lib/api";
import type { Reads } from "../locks/rows/live-index";
import type { RemovalCause } from "../locks/watch/store/node-store";
import { describeLatin1Key } from "../locks/read/key-name";
import { sessionOfValue } from "../locks/read/ownership";
import { standingOf, waitersOf } from "../locks/rows/quorum";
import { Coverage } from "./coverage";
import { Episodes } from "./episodes";
import { BriefHolds } from "./brief-holds";
import { ForceMarks, type ForceMarkEvent } from "./force-marks";
import { extendedTo, majorityHold, ownerOf, recordNodeChange, type Hold } from "./hold-fold";
import { Reseed, type HoldSource } from "./reseed";
import { endOf, extendedOf, startOf, type Ended } from "./hold-transitions";
import { overlapRiskOf, type OverlapRisk } from "./overlap";
import { SessionChecks, type SessionReader, type TransitionFields } from "./session-checks";
import { TransitionLog, type TransitionListener } from "./transition-log";

/** What the timeline needs of the live index. */
export interface IndexView extends HoldSource {
  readonly complete: boolean;
  readonly nodeIds: readonly string[];
  /** The nodes polled now, and how often a pass sees a change there: history only samples them. */
  sampled?(): HistoryHorizon["sampled"];
}

export interface TimelineOptions {
  /** Transitions kept (CONSOLE_HISTORY_MAX). */
  readonly capacity: number;
  /** Called for every transition (metrics, a durable store). */
  readonly onTransition?: (transition: Transition) => void;
  /** Holds too short to be read, counted per lock (see brief()). */
  readonly onBriefHolds?: (holds: number) => void;
  /** A shared history (replicas): what the fold emits goes there; only `accept`ed ones are served. */
  readonly record?: (transition: Transition) => void;
  /** Shares this console's force-release marks with the other replicas (replicas/force-mark-share.ts). */
  readonly shareForceMark?: (event: ForceMarkEvent) => Promise<void>;
  /** Called on every tick while the index is whole: history is complete up to `nowMs`. */
  readonly onComplete?: (nowMs: number) => void;
  /** Whether history is kept in a state store (a function: a refused store turns it off). */
  readonly durable?: boolean | (() => boolean);
  /** Reads an expired holder's session on every lock node (read-session.ts), bounded by the node deadline. */
  readonly readSession: SessionReader;
  /** Sessions read at once at most; an expiry beyond says "not-checked". @default 8 */
  readonly maxSessionChecks?: number;
}

/** A claim that ended unconfirmed is remembered this long, to flag the next holder (overlap.ts). */
const RISK_MEMORY_MS = 60 * 60_000;
const PRUNE_INTERVAL_MS = 60_000;

export class Timeline {
  readonly #index: IndexView;
  readonly #options: TimelineOptions;
  readonly #log: TransitionLog;
  readonly #holds = new Map<string, Hold>();
  readonly #episodes = new Episodes();
  readonly #risks = new Map<string, OverlapRisk>();
  readonly #forceMarks = new ForceMarks();
  readonly #brief = new BriefHolds();
  readonly #coverage = new Coverage();
  readonly #reseed = new Reseed();
  readonly #checks: SessionChecks;
  #lastPruneMs = 0;

  constructor(index: IndexView, options: TimelineOptions) {
    this.#index = index;
    this.#options = options;
    this.#log = new TransitionLog(options.capacity, options.onTransition, options.record);
    this.#checks = new SessionChecks(
      options.readSession,
      (fields) => this.#log.publish(fields),
      options.maxSessionChecks,
    );
  }

  /** Subscribes to every new transition; returns the unsubscribe. */
  subscribe(listener: TransitionListener): () => void {
    return this.#log.subscribe(listener);
  }

  /** Newest first. */
  transitions(
    limit: number,
    keep: (transition: Transition) => boolean = () => true,
    afterId?: number,
  ): Transition[] {
    return this.#log.history.newest(limit, keep, afterId);
  }

  activity(resource: string, nowMs: number) {
    return this.#log.history.activity(resource, nowMs);
  }

  horizon(): HistoryHorizon {
    const { durable = false } = this.#options;
    const sampled = this.#index.sampled?.() ?? [];
    return this.#coverage.horizon(
      this.#log.history,
      typeof durable === "function" ? durable() : durable,
      sampled,
    );
  }

  /**
   * Transitions loaded from a durable store, oldest first, kept as history with their ids
   * (transition-log.ts), with a gap from the store's as-of time (its last transition's without
   * one) to now: the console was not watching then.
   */
  restore(stored: readonly Transition[], storeAsOfMs: number | null, nowMs = Date.now()): void {
    this.#log.restore(stored);
    const first = stored[0];
    this.#coverage.restored(
      first ? first.at : null,
      first ? (storeAsOfMs ?? stored.at(-1)!.at) : nowMs,
    );
  }

  /** A transition of the shared history, read back from the store. */
  accept(transition: Transition): void {
    this.#log.accept(transition);
  }

  /**
   * This console's force-release is about to write `resource` (force-marks.ts `mark`); resolves once
   * the other replicas were told, so that whichever writes the history attributes the end.
   */
  async markForceRelease(
    resource: string,
    by: string,
    reason: string | null,
    value: string | null,
    auditId: string | null = null,
  ): Promise<void> {
    const event: ForceMarkEvent = {
      op: "mark",
      resource,
      by,
      reason,
      value,
      auditId,
      atMs: Date.now(),
    };
    this.applyForceMark(event);
    await this.#options.shareForceMark?.(event);
  }

  /** The force-release of `resource` answered: it removed `values` (force-marks.ts `settle`). */
  settleForceRelease(resource: string, values: readonly string[]): void {
    const event: ForceMarkEvent = { op: "settle", resource, values: [...values] };
    this.applyForceMark(event);
    void this.#options.shareForceMark?.(event);
  }

  /** A force-release mark, this console's or another replica's. */
  applyForceMark(event: ForceMarkEvent): void {
    if (event.op === "settle") this.#forceMarks.settle(event.resource, event.values);
    else
      this.#forceMarks.mark(
        event.resource,
        event.by,
        event.reason,
        event.value,
        event.auditId,
        event.atMs,
      );
  }

  /**
   * Node `nodeIndex` changed for `key` (its removal `cause` when it lost the key); `reads` and
   * `state` are after it; `seq`: the index's count of the change (reseed.ts's `saw`).
   */
  observe(
    key: string,
    reads: Reads,
    state: LockState | null,
    nodeIndex: number,
    cause: RemovalCause | undefined,
    nowMs = Date.now(),
    seq?: number,
  ): void {
    if (!this.#checkComplete(nowMs)) return;
    // Already in the holds re-read from the index: it happened before history (re)started there.
    if (seq !== undefined && this.#reseed.saw(key, seq)) return;
    const hold = this.#holds.get(key);
    if (hold) recordNodeChange(hold, reads[nodeIndex], nodeIndex, cause);
    // Not re-read yet since the index became whole: the re-read will find what it holds then.
    const ended = this.#reseed.reached(key) ? this.#fold(key, reads, state, nowMs) : null;
    // An eviction is a transition of its own, beside a hold that goes on (the lock's safety is gone
    // there); one that cost the hold its majority is already said by the hold's `evicted` end.
    if (cause === "evicted" && ended?.fields.kind !== "evicted") {
      this.#emit({
        kind: "evicted",
        resource: key,
        at: nowMs,
        value: hold?.value ?? null,
        owner: hold ? ownerOf(hold) : null,
        nodeIds: [this.#index.nodeIds[nodeIndex]!],
      });
    }
  }

  /** A node is relisted after a gap: what changed there since `sinceMs` is unknown until it ends. */
  gap(sinceMs: number): void {
    this.#coverage.gap(sinceMs, this.#log.publishedAny);
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
      this.#log.history.countBriefHolds(displayName(key), nowMs, holds);
      this.#options.onBriefHolds?.(holds);
    }
    for (const [key, episode] of this.#episodes.due(nowMs))
      this.#emit({ kind: episode.kind, resource: key, at: nowMs, since: episode.sinceMs });
    if (nowMs - this.#lastPruneMs >= PRUNE_INTERVAL_MS) {
      this.#lastPruneMs = nowMs;
      this.#log.history.pruneActivity(nowMs);
      for (const [key, risk] of this.#risks)
        if (nowMs - risk.sinceMs > RISK_MEMORY_MS) this.#risks.delete(key);
      this.#forceMarks.prune(nowMs);
    }
  }

  /**
   * Whether transitions can be folded now. On the index becoming whole, the holds are re-read from
   * it silently and the stretch before is recorded as a gap (or, the first time, starts history).
   */
  #checkComplete(nowMs: number): boolean {
    const step = this.#coverage.check(this.#index.complete, nowMs, this.#log.publishedAny);
    if (step.kind === "whole") {
      this.#episodes.clear();
      this.#reseed.start(this.#index, this.#holds, nowMs);
      if (step.gapSinceMs !== null)
        this.#emit({ kind: "gap", resource: "", at: nowMs, since: step.gapSinceMs });
    }
    return this.#coverage.complete;
  }

  /** Folds a change into the key's hold; returns how the hold ended, when it did. */
  #fold(key: string, reads: Reads, state: LockState | null, nowMs: number): Ended | null {
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
      const started = startOf(key, next, ended, this.#risks.get(key), nowMs);
      // A tombstone is no new holder: the flag waits for the next acquisition.
      if (!next.tombstone) this.#risks.delete(key);
      this.#holds.set(key, started.hold);
      this.#emit(started.fields);
    }
    this.#episodes.track(key, state, nowMs);
    return ended;
  }

  #end(key: string, hold: Hold, reads: Reads, nowMs: number): Ended {
    this.#holds.delete(key);
    const ended = endOf(key, hold, this.#forceMarks.get(key), reads, nowMs, this.#index.nodeIds);
    if (ended.markUsed) this.#forceMarks.spend(key);
    // Ended without its holder confirming it stopped: it may still act, so the next one is flagged.
    const risk = overlapRiskOf(ended);
    if (risk) this.#risks.set(key, risk);
    else this.#risks.delete(key);
    if (ended.fields.kind !== "expired") {
      this.#emit(ended.fields);
      return ended;
    }
    const { evictedOn, endMs } = ended;
    const check = { sessionId: sessionOfValue(hold.value), endMs, evictedOn };
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
}

/** The resource name of a key (latin1 of its bytes) as the API shows it: its UTF-8 text. */
const displayName = (key: string): string => describeLatin1Key(key).resource;
