/**
 * A latency the product promises, measured with its distribution beside its target (issue 48).
 * Tests assert only what holds at any speed (an order, a state never shown); how fast it happens
 * is a figure of this machine, so it lives here: each target is sampled many times on real masters,
 * and `npm run bench` says whether its percentile is within the promise.
 */
import { performance } from "node:perf_hooks";
import { percentile } from "../stats";

/** What a target's set-up is given: the bench's five masters (their URLs). */
export interface TargetContext {
  readonly urls: readonly string[];
}

/** One prepared measurement: `sample()` runs the scenario once and returns its latency in ms. */
export interface TargetRun {
  sample(): Promise<number>;
  close(): Promise<void>;
}

export interface LatencyTarget {
  /** What is promised, in words: "a stopped holder is unresponsive in the console". */
  readonly name: string;
  /** The test that keeps the invariant this latency belongs to (file › test name). */
  readonly test: string;
  /** The promise: the `percentile`-th percentile of the samples is at most `targetMs`. */
  readonly targetMs: number;
  /** @default 99 */
  readonly percentile?: 50 | 90 | 99;
  /** Samples taken; a slow scenario (seconds per sample) takes fewer. */
  readonly runs: number;
  /** Samples taken with BENCH_QUICK=1. @default 3 */
  readonly quickRuns?: number;
  /** Starts what the scenario needs (a console, a holder) once, before the samples. */
  setup(context: TargetContext): Promise<TargetRun>;
}

export interface TargetResult {
  readonly name: string;
  readonly test: string;
  readonly targetMs: number;
  readonly percentile: number;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The promised percentile within the target. */
  readonly holds: boolean;
  /** Set when the scenario itself failed (then `holds` is false). */
  readonly error?: string;
  readonly durationS: number;
}

/** Samples one target; a scenario that throws is reported as not holding, with its error. */
export async function measureTarget(
  target: LatencyTarget,
  context: TargetContext,
  quick: boolean,
): Promise<TargetResult> {
  const startedMs = performance.now();
  const wanted = quick ? (target.quickRuns ?? 3) : target.runs;
  const promised = target.percentile ?? 99;
  const samplesMs: number[] = [];
  let error: string | undefined;
  let run: TargetRun | undefined;
  try {
    run = await target.setup(context);
    for (let index = 0; index < wanted; index += 1) samplesMs.push(await run.sample());
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    await run?.close().catch(() => undefined);
  }
  const at = (p: number) => percentile(samplesMs, p);
  return {
    name: target.name,
    test: target.test,
    targetMs: target.targetMs,
    percentile: promised,
    samples: samplesMs.length,
    p50Ms: at(50),
    p90Ms: at(90),
    p99Ms: at(99),
    maxMs: samplesMs.length > 0 ? Math.max(...samplesMs) : Number.NaN,
    holds: error === undefined && samplesMs.length > 0 && at(promised) <= target.targetMs,
    ...(error === undefined ? {} : { error }),
    durationS: (performance.now() - startedMs) / 1000,
  };
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : "–");

/** One line per target: its promise, its distribution and whether it holds, in words. */
export function formatTargetTable(results: readonly TargetResult[]): string {
  const lines = results.map((result) => {
    const verdict = result.error
      ? `FAILED TO RUN (${result.error})`
      : result.holds
        ? "holds"
        : "MISSED";
    return [
      `${result.name}`,
      `  target p${result.percentile} ≤ ${result.targetMs} ms: ${verdict}`,
      `  ${result.samples} samples: p50 ${ms(result.p50Ms)}, p90 ${ms(result.p90Ms)}, p99 ${ms(result.p99Ms)}, max ${ms(result.maxMs)} (${result.durationS.toFixed(0)} s)`,
      `  invariant kept by ${result.test}`,
    ].join("\n");
  });
  const held = results.filter((result) => result.holds).length;
  return `latency targets: ${held} of ${results.length} hold\n\n${lines.join("\n\n")}`;
}
