import "server-only";
/**
 * The last `capacity` transitions, oldest overwritten first (a ring: memory is bounded by the
 * capacity, whatever the rate), plus a per-lock activity count for the overview's "last hour".
 */
import type { Transition } from "@/lib/api/timeline";

/** The overview's "last hour" is counted in steps of this many ms (12 steps). */
const ACTIVITY_STEP_MS = 5 * 60_000;
const ACTIVITY_STEPS = 12;

export class History {
  readonly capacity: number;
  readonly #ring: Array<Transition | undefined>;
  /** Index of the next slot written. */
  #next = 0;
  #size = 0;
  /** Per resource: [step of slot 0, hands × 12, expired × 12] — only for locks with activity. */
  readonly #activity = new Map<string, { step: number; counts: Uint32Array }>();

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#ring = new Array<Transition | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** The oldest transition kept; undefined when none. */
  get oldest(): Transition | undefined {
    if (this.#size === 0) return undefined;
    return this.#ring[(this.#next - this.#size + this.capacity) % this.capacity];
  }

  push(transition: Transition): void {
    this.#ring[this.#next] = transition;
    this.#next = (this.#next + 1) % this.capacity;
    this.#size = Math.min(this.#size + 1, this.capacity);
    if (transition.kind === "acquired") this.#count(transition.resource, transition.at, 0);
    else if (transition.kind === "expired") this.#count(transition.resource, transition.at, 1);
  }

  /** Newest first, those `keep` accepts, at most `limit`, each with id > `afterId`. */
  newest(limit: number, keep: (transition: Transition) => boolean, afterId = -1): Transition[] {
    const found: Transition[] = [];
    for (let offset = 1; offset <= this.#size && found.length < limit; offset += 1) {
      const transition = this.#ring[(this.#next - offset + this.capacity) % this.capacity]!;
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
