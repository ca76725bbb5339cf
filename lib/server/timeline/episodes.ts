/**
 * Partial and conflict episodes per lock: a row that stays partial or in conflict for
 * EPISODE_MIN_MS is an episode, reported once; a shorter one is an acquire or a release in flight
 * (its nodes answer one after the other), not worth a transition. Tested as tables in
 * test/server/timeline-rules.test.ts.
 */
import type { LockState } from "@/lib/api";
import { EPISODE_MIN_MS } from "@/lib/api";

export interface Episode {
  readonly kind: "partial" | "conflict";
  readonly sinceMs: number;
}

export class Episodes {
  readonly #open = new Map<string, Episode & { reported: boolean }>();

  /** The row of `key` is now in `state`: an episode of that kind starts, goes on or ends. */
  track(key: string, state: LockState | null, nowMs: number): void {
    if (state !== "partial" && state !== "conflict") {
      this.#open.delete(key);
      return;
    }
    if (this.#open.get(key)?.kind === state) return;
    this.#open.set(key, { kind: state, sinceMs: nowMs, reported: false });
  }

  /** The episodes that reached EPISODE_MIN_MS by `nowMs` and were not reported yet; reported now. */
  due(nowMs: number): Array<[key: string, episode: Episode]> {
    const due: Array<[string, Episode]> = [];
    for (const [key, episode] of this.#open) {
      if (episode.reported || nowMs - episode.sinceMs < EPISODE_MIN_MS) continue;
      episode.reported = true;
      due.push([key, episode]);
    }
    return due;
  }

  /** Forgets every episode: the holds are re-read, and what came before was not seen. */
  clear(): void {
    this.#open.clear();
  }
}
