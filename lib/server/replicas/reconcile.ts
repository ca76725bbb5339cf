/**
 * What a replica that does not write the shared history keeps of its own fold, so that it can
 * take over without losing a transition or writing one twice. Every replica folds its own live
 * index; a follower keeps what it folded as pending and matches it against what the writer stored.
 * The rule (tested as a table in test/server/replica-reconcile.test.ts):
 * - a transition is the same as a stored one when kind, resource and value agree (a value is a
 *   random token: acquired, and each way a hold ends, happen once per value; extensions and
 *   episodes match one for one, oldest first);
 * - what is already stored is not written twice: a pending one that meets a stored one, whichever
 *   came first, is dropped with it;
 * - the writer vouches for its view up to its as-of instant (it writes it only while its index is
 *   whole, after the transitions folded before it): a pending one from before as-of − margin that
 *   met none is a difference of views (a brief hold only one replica read), dropped;
 * - what the dead writer never stored is written by the next writer, in the order it folded them;
 * - a real blind spot (pending dropped for the bound) is written as a gap with its reason.
 * Pure: no clock, no store.
 */
import { makeTransition, type Transition } from "@/lib/api";

/** The writer's as-of and a follower's fold may disagree by this much (notification lag, load). */
export const AS_OF_MARGIN_MS = 2_000;
/** A stored transition no pending one met is kept this long for a late fold to meet it. */
export const STORED_MEMORY_MS = 30_000;
/** Pending transitions kept at most; past it the oldest are dropped and said as a gap. */
export const PENDING_MAX = 10_000;

const keyOf = (transition: Transition): string =>
  `${transition.kind}\u0000${transition.resource}\u0000${transition.value ?? ""}`;

export class Reconciler {
  /** Per key, pending transitions oldest first (ids: this replica's fold order). */
  readonly #pending = new Map<string, Transition[]>();
  /** Per key, when each stored transition no pending one met arrived. */
  readonly #stored = new Map<string, number[]>();
  #pendingCount = 0;
  /** Since when pending were dropped for the bound; null when none was. */
  #droppedSinceMs: number | null = null;

  get pendingCount(): number {
    return this.#pendingCount;
  }

  /** This replica folded `transition` while another one writes. */
  pending(transition: Transition): void {
    const key = keyOf(transition);
    if (take(this.#stored, key) !== undefined) return;
    push(this.#pending, key, transition);
    this.#pendingCount += 1;
    if (this.#pendingCount > PENDING_MAX) this.#dropOldest();
  }

  /** The writer stored `transition` (read back from the store at `nowMs`). */
  stored(transition: Transition, nowMs: number): void {
    const key = keyOf(transition);
    if (take(this.#pending, key) !== undefined) this.#pendingCount -= 1;
    else push(this.#stored, key, nowMs);
  }

  /** The writer watched completely until `asOfMs`: older unmatched pending ones are differences of views. */
  asOf(asOfMs: number): void {
    this.#filterPending((transition) => transition.at > asOfMs - AS_OF_MARGIN_MS);
  }

  /** Forgets stored transitions no fold met within STORED_MEMORY_MS. */
  prune(nowMs: number): void {
    for (const [key, times] of this.#stored) {
      const kept = times.filter((atMs) => nowMs - atMs <= STORED_MEMORY_MS);
      if (kept.length > 0) this.#stored.set(key, kept);
      else this.#stored.delete(key);
    }
  }

  /**
   * This replica becomes the writer at `nowMs`: what it must write, in fold order, led by a gap
   * when pending ones were dropped for the bound; pending is emptied. Ids are the caller's to give.
   */
  takeover(nowMs: number): Transition[] {
    const due = [...this.#pending.values()].flat().sort((a, b) => a.id - b.id);
    const dropped = this.#droppedSinceMs;
    this.#pending.clear();
    this.#pendingCount = 0;
    this.#droppedSinceMs = null;
    if (dropped === null) return due;
    const gap = makeTransition({
      id: 0,
      kind: "gap",
      resource: "",
      at: due[0]?.at ?? nowMs,
      since: dropped,
      reason: "replica-backlog",
      summary: `the replica that took over the history had kept only its last ${PENDING_MAX} transitions`,
    });
    return [gap, ...due];
  }

  #dropOldest(): void {
    let oldest: Transition | undefined;
    for (const list of this.#pending.values())
      if (!oldest || list[0]!.id < oldest.id) oldest = list[0];
    if (!oldest) return;
    take(this.#pending, keyOf(oldest));
    this.#pendingCount -= 1;
    this.#droppedSinceMs ??= oldest.at;
  }

  #filterPending(keep: (transition: Transition) => boolean): void {
    for (const [key, list] of this.#pending) {
      const kept = list.filter(keep);
      this.#pendingCount -= list.length - kept.length;
      if (kept.length > 0) this.#pending.set(key, kept);
      else this.#pending.delete(key);
    }
  }
}

function push<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

/** Removes and returns the oldest item under `key`. */
function take<T>(map: Map<string, T[]>, key: string): T | undefined {
  const list = map.get(key);
  if (!list) return undefined;
  const item = list.shift();
  if (list.length === 0) map.delete(key);
  return item;
}
