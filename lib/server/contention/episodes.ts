/**
 * Deadlock cycles counted once per episode. A Redlock cycle does not hang: its members give up
 * when their retries run out, release, retry, and the same cycle forms again a moment later. So
 * an episode is one cycle (the same sessions on the same locks) seen again and again, and it ends
 * only once the cycle has been absent for EPISODE_GAP_MS: ten seconds, about three default retry
 * windows (retryCount 10 × (retryDelay 200 + retryJitter 100) ms ≈ 3 s), long enough for the
 * members to come back, short enough that a new deadlock an hour later is a new episode.
 */
import { randomUUID } from "node:crypto";
import type { FoundCycle } from "./paths";

export const EPISODE_GAP_MS = 10_000;

export interface Episode {
  readonly id: string;
  readonly firstSeenMs: number;
  lastSeenMs: number;
}

/** The same cycle whichever member the graph starts it at: its sessions and locks, sorted. */
export const cycleSignature = (cycle: FoundCycle) =>
  `${[...cycle.sessions].sort().join(",")}|${[...cycle.resources].sort().join("\u0000")}`;

export class Episodes {
  readonly #open = new Map<string, Episode>();
  #total = 0;

  constructor(private readonly onEpisode: (cycle: FoundCycle) => void = () => undefined) {}

  get total(): number {
    return this.#total;
  }

  /** Episodes still open (seen within the gap). */
  get openCount(): number {
    return this.#open.size;
  }

  /** The cycles of one build, each with its episode; closes episodes absent for longer than the gap. */
  observe(
    cycles: readonly FoundCycle[],
    nowMs: number,
  ): Array<{ cycle: FoundCycle; episode: Episode }> {
    const seen = cycles.map((cycle) => {
      const signature = cycleSignature(cycle);
      let episode = this.#open.get(signature);
      if (!episode) {
        episode = { id: randomUUID(), firstSeenMs: nowMs, lastSeenMs: nowMs };
        this.#open.set(signature, episode);
        this.#total += 1;
        this.onEpisode(cycle);
      }
      episode.lastSeenMs = nowMs;
      return { cycle, episode };
    });
    for (const [signature, episode] of this.#open)
      if (nowMs - episode.lastSeenMs > EPISODE_GAP_MS) this.#open.delete(signature);
    return seen;
  }
}
