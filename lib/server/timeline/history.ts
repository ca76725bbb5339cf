import "server-only";
/**
 * The last `capacity` transitions, oldest overwritten first (rings: memory is bounded by the
 * capacity, whatever the rate; episodes bounded apart from hand-overs), plus a per-lock activity count for the overview's "last hour".
 */
import type { Transition } from "@/lib/api";

/** The overview's "last hour" is counted in steps of this many ms (12 steps). */
const ACTIVITY_STEP_MS = 5 * 60_000;
const ACTIVITY_STEPS = 12;

/** Partial and conflict episodes: what a node's junk or a half-done acquire produces, not a hand-over. */
const isEpisode = (transition: Transition): boolean =>
  transition.kind === "partial" || transition.kind === "conflict";

/** A ring of at most `capacity` transitions, oldest overwritten first. */
class Ring {
  readonly #slots: Array<Transition | undefined>;
  #next = 0;
  size = 0;

  constructor(readonly capacity: number) {
    this.#slots = new Array<Transition | undefined>(capacity);
  }

  push(transition: Transition): void {
    if (this.capacity === 0) return;
    this.#slots[this.#next] = transition;
    this.#next = (this.#next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** The `offset`-th newest (1: the newest); undefined past the size. */
  at(offset: number): Transition | undefined {
    if (offset > this.size) return undefined;
    return this.#slots[(this.#next - offset + this.capacity) % this.capacity];
  }

  get oldest(): Transition | undefined {
    return this.at(this.size);
  }
}

/**
 * Transitions of every kind but episodes keep `capacity`; episodes (partial, conflict) a ring of
 * their own, a quarter as large: 5,000 junk keys set on one node are 5,000 partial episodes, and in
 * one shared ring they would push out every real acquisition, release and expiry.
 */
export class History {
  readonly capacity: number;
  readonly #main: Ring;
  readonly #episodes: Ring;
  /** Per resource: [step of slot 0, hands × 12, expired × 12] — only for locks with activity. */
  readonly #activity = new Map<string, { step: number; counts: Uint32Array }>();

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#main = new Ring(capacity);
    this.#episodes = new Ring(Math.floor(capacity / 4));
  }

  get size(): number {
    return this.#main.size + this.#episodes.size;
  }

  /** Some transitions were dropped: a ring is full. */
  get full(): boolean {
    return [this.#main, this.#episodes].some(
      (ring) => ring.capacity > 0 && ring.size >= ring.capacity,
    );
  }

  /**
   * What bounds the history once full: the newest of the full rings' oldest transitions (before
   * it, some were dropped); otherwise the oldest kept. Undefined when none.
   */
  get oldest(): Transition | undefined {
    const bounds = [this.#main, this.#episodes]
      .filter((ring) => ring.capacity > 0 && ring.size >= ring.capacity)
      .map((ring) => ring.oldest!);
    if (bounds.length > 0) return bounds.reduce((a, b) => (a.id > b.id ? a : b));
    const main = this.#main.oldest;
    const episode = this.#episodes.oldest;
    if (!main || !episode) return main ?? episode;
    return main.id < episode.id ? main : episode;
  }

  push(transition: Transition): void {
    if (isEpisode(transition) && this.#episodes.capacity > 0) this.#episodes.push(transition);
    else this.#main.push(transition);
    if (transition.kind === "acquired") this.#count(transition.resource, transition.at, 0);
    else if (transition.kind === "expired") this.#count(transition.resource, transition.at, 1);
  }

  /** Newest first (by id), those `keep` accepts, at most `limit`, each with id > `afterId`. */
  newest(limit: number, keep: (transition: Transition) => boolean, afterId = -1): Transition[] {
    const found: Transition[] = [];
    let main = 1;
    let episode = 1;
    while (found.length < limit) {
      const a = this.#main.at(main);
      const b = this.#episodes.at(episode);
      let transition: Transition;
      if (a && (!b || a.id > b.id)) {
        transition = a;
        main += 1;
      } else if (b) {
        transition = b;
        episode += 1;
      } else break;
      if (transition.id <= afterId) break;
      if (keep(transition)) found.push(transition);
    }
    return found;
  }

  /** Acquisitions and expiries while held of `resource` in the last hour (in 5-minute steps). */
  activity(resource: string, nowMs: number): { handsLastHour: number; expiredLastHour: number } {
    const entry = this.#activity.get(resource);
    if (!entry) return { handsLastHour: 0, expiredLastHour: 0 };
    this.#roll(entry, Math.floor(nowMs / ACTIVITY_STEP_MS));
    let hands = 0;
    let expired = 0;
    for (let step = 0; step < ACTIVITY_STEPS; step += 1) {
      hands += entry.counts[step]!;
      expired += entry.counts[ACTIVITY_STEPS + step]!;
    }
    return { handsLastHour: hands, expiredLastHour: expired };
  }

  /** Drops the activity of locks quiet for an hour (called now and then: O(active locks)). */
  pruneActivity(nowMs: number): void {
    const step = Math.floor(nowMs / ACTIVITY_STEP_MS);
    for (const [resource, entry] of this.#activity)
      if (step - entry.step >= ACTIVITY_STEPS) this.#activity.delete(resource);
  }

  /** Holds too short to be read (see Timeline.brief): counted as changes of hands, not kept. */
  countBriefHolds(resource: string, atMs: number, holds: number): void {
    this.#count(resource, atMs, 0, holds);
  }

  #count(resource: string, atMs: number, series: 0 | 1, by = 1): void {
    const step = Math.floor(atMs / ACTIVITY_STEP_MS);
    let entry = this.#activity.get(resource);
    if (!entry) {
      entry = { step, counts: new Uint32Array(ACTIVITY_STEPS * 2) };
      this.#activity.set(resource, entry);
    }
    this.#roll(entry, step);
    entry.counts[series * ACTIVITY_STEPS + (step % ACTIVITY_STEPS)]! += by;
  }

  /** Clears the steps that fell out of the hour since the entry was last touched. */
  #roll(entry: { step: number; counts: Uint32Array }, step: number): void {
    if (step <= entry.step) return;
    const passed = Math.min(step - entry.step, ACTIVITY_STEPS);
    for (let offset = 1; offset <= passed; offset += 1) {
      const slot = (entry.step + offset) % ACTIVITY_STEPS;
      entry.counts[slot] = 0;
      entry.counts[ACTIVITY_STEPS + slot] = 0;
    }
    entry.step = step;
  }
}
