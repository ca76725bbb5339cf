/**
 * How fast a polled node is passed over, from what a key costs that master. Each pass reads the
 * master's INFO commandstats before and after: the CPU its SCAN and scripts took (every client's,
 * so an application running scripts makes the estimate high and the pace gentler, never harsher),
 * divided by the keys the pass visited, is the cost of a key. The next pass visits keys at the
 * rate that spends POLL_CPU_SHARE of one core on it, never above the node's budget. Freshness
 * degrades instead: a pass over the node takes keys / pace, and the node card says so.
 */
import { createBudget, type Budget } from "../io/budget";

/** The share of one core of the master a polled node's passes may take: 2%. */
export const POLL_CPU_SHARE = 0.02;
/**
 * The master's whole CPU for a pass against the commands' own time that commandstats counts: the
 * socket reads and writes, parsing and replies around them are not in it. INFO cpu measured 2.2×
 * on Redis 7 for this mix (test/server/polling-cost.test.ts); 3 keeps a margin.
 */
const PROCESS_CPU_PER_COMMAND_CPU = 3;
/** The cost of a key assumed before a pass measured it: a 40-byte lock read by the script, generous. */
const ASSUMED_KEY_COST_US = 5;
/** Keys per second a pass visits at least, whatever the estimate (a busy scripted app inflates it). */
const MIN_PACE_PER_S = 100;
/** The pace is replaced only when it moves by more than this fraction (a budget is a token bucket). */
const PACE_CHANGE_MIN = 0.1;
/** Commands whose CPU a pass spends: its SCAN, and the read script (with what the script runs). */
const PASS_COMMANDS = /^cmdstat_(scan|evalsha|eval|evalsha_ro|eval_ro):calls=\d+,usec=(\d+)/gm;

/** CPU (µs) the pass commands have taken on the master since its start, from INFO commandstats. */
export function passCommandsUsec(commandstats: string): number {
  let usec = 0;
  for (const match of commandstats.matchAll(PASS_COMMANDS)) usec += Number(match[2]);
  return usec;
}

/** What the node card shows of a polled node's pace. */
export interface PaceReport {
  /** Keys per second a pass visits. */
  readonly perS: number;
  /** The measured cost of a key on the master (µs); null until a pass measured it. */
  readonly keyCostUs: number | null;
  /** The share of a core the last pass took on the master (its commands' time × the I/O around them); null until measured. */
  readonly cpuShare: number | null;
}

export class PollPace {
  readonly #maxPerS: number;
  #budget: Budget;
  #keyCostUs: number | null = null;
  #cpuShare: number | null = null;

  constructor(maxPerS: number) {
    this.#maxPerS = maxPerS;
    this.#budget = createBudget(this.#paceFor(ASSUMED_KEY_COST_US));
  }

  /** The budget a pass draws from. */
  get budget(): Budget {
    return this.#budget;
  }

  report(): PaceReport {
    return { perS: this.#budget.perS, keyCostUs: this.#keyCostUs, cpuShare: this.#cpuShare };
  }

  /**
   * A pass visited `keysVisited` keys in `elapsedMs`, and the pass commands took `usec` on the
   * master meanwhile: the next pass's pace follows.
   */
  measured(keysVisited: number, usec: number, elapsedMs: number): void {
    if (keysVisited <= 0 || usec < 0) return;
    this.#keyCostUs = usec / keysVisited;
    if (elapsedMs > 0) this.#cpuShare = (usec * PROCESS_CPU_PER_COMMAND_CPU) / 1_000 / elapsedMs;
    const perS = this.#paceFor(this.#keyCostUs);
    if (Math.abs(perS - this.#budget.perS) > this.#budget.perS * PACE_CHANGE_MIN)
      this.#budget = createBudget(perS);
  }

  #paceFor(keyCostUs: number): number {
    const processKeyCostUs = Math.max(keyCostUs, 0.01) * PROCESS_CPU_PER_COMMAND_CPU;
    const perS = Math.floor((POLL_CPU_SHARE * 1_000_000) / processKeyCostUs);
    return Math.max(MIN_PACE_PER_S, Math.min(this.#maxPerS, perS));
  }
}
