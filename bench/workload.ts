/** Closed-loop load: N workers repeat an operation until a deadline; only the measured window counts. */
import { performance } from "node:perf_hooks";

export interface LoopOptions {
  readonly workers: number;
  /** Run but not counted, so JIT and connections are warm when measuring starts. */
  readonly warmupMs: number;
  readonly durationMs: number;
  /** One operation of worker `worker` (e.g. acquire then release its own resource). */
  readonly operation: (worker: number, iteration: number) => Promise<void>;
  /** Called every `sampleEveryMs` during the measured window (e.g. queue length, heap). */
  readonly sample?: (elapsedMs: number) => void;
  readonly sampleEveryMs?: number;
}

export interface LoopResult {
  /** Latency of each operation started inside the measured window, ms. */
  readonly latenciesMs: number[];
  readonly measuredMs: number;
  readonly opsPerS: number;
  /**
   * This process's CPU time (user + system) per operation in the window, µs. Other processes
   * sharing the cores barely move it, so it compares libraries more steadily than ops/s.
   */
  readonly cpuUsPerOp: number;
}

export async function closedLoop(options: LoopOptions): Promise<LoopResult> {
  const measureFrom = performance.now() + options.warmupMs;
  const measureUntil = measureFrom + options.durationMs;
  const latenciesMs: number[] = [];
  let cpuAtStart = process.cpuUsage();
  let sampler: NodeJS.Timeout | undefined;
  const startSampling = setTimeout(() => {
    cpuAtStart = process.cpuUsage();
    if (!options.sample) return;
    options.sample(0);
    sampler = setInterval(
      () => options.sample!(performance.now() - measureFrom),
      options.sampleEveryMs ?? 1_000,
    );
  }, options.warmupMs);

  const worker = async (index: number) => {
    for (let iteration = 0; ; iteration += 1) {
      const startMs = performance.now();
      if (startMs >= measureUntil) return;
      await options.operation(index, iteration);
      if (startMs >= measureFrom) latenciesMs.push(performance.now() - startMs);
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  const cpu = process.cpuUsage(cpuAtStart);
  clearTimeout(startSampling);
  if (sampler) clearInterval(sampler);
  options.sample?.(performance.now() - measureFrom);
  // Operations still in flight at the deadline finish after it; count the window they really took.
  const measuredMs = Math.max(options.durationMs, performance.now() - measureFrom);
  const cpuUsPerOp = (cpu.user + cpu.system) / Math.max(1, latenciesMs.length);
  return { latenciesMs, measuredMs, opsPerS: (latenciesMs.length * 1000) / measuredMs, cpuUsPerOp };
}
