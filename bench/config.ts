/**
 * How long each scenario runs. BENCH_QUICK=1 is a ~1-minute smoke run; BENCH_PAUSE_S overrides the
 * paused-node window (30 s by default, as the issue asks). Full runs fit in 10 minutes on 2 cores.
 * BENCH_ROUNDS overrides the number of rounds.
 */
const quick = process.env.BENCH_QUICK === "1";
const pauseS = Number(process.env.BENCH_PAUSE_S ?? (quick ? 4 : 30));
/** BENCH_DURATION_MS stretches the sequential and throughput windows, e.g. for a longer CPU profile. */
const loopMs = (defaultMs: number) => Number(process.env.BENCH_DURATION_MS ?? defaultMs);

const only = process.env.BENCH_ONLY?.split(",");

export const plan = {
  quick,
  /**
   * BENCH_ONLY=locks,paused,snapshot,busy,memory,polling,readers,targets runs only those sections (all by
   * default but readers: it runs only when named).
   */
  sections: {
    locks: !only || only.includes("locks"),
    paused: !only || only.includes("paused"),
    snapshot: !only || only.includes("snapshot"),
    busy: !only || only.includes("busy"),
    memory: !only || only.includes("memory"),
    polling: !only || only.includes("polling"),
    readers: only?.includes("readers") ?? false,
    /** Semaphores vs redis-semaphore (bench/semaphore.ts). */
    semaphore: !only || only.includes("semaphore"),
    /** Only when named (BENCH_ONLY=overview-tab): it seeds 100,000 locks per master. */
    overviewTab: Boolean(only?.includes("overview-tab")),
    /** The latency targets with their distributions (bench/targets/). */
    targets: !only || only.includes("targets"),
  },
  /** BENCH_TARGETS=<words>: only the targets whose name contains them. */
  targetFilter: process.env.BENCH_TARGETS ?? null,
  /** Acquire/release pairs per second of semaphores at 1 and 64 callers (bench/semaphore.ts). */
  semaphore: { warmupMs: quick ? 200 : 500, durationMs: loopMs(quick ? 800 : 2_000) },
  /** Rounds of the interleaved scenarios; medians over rounds are reported. */
  rounds: Number(process.env.BENCH_ROUNDS ?? (quick ? 2 : 3)),
  /** Lock TTL of every scenario, ms (long enough never to expire mid-operation). */
  ttlMs: 10_000,
  sequential: { warmupMs: quick ? 200 : 500, durationMs: loopMs(quick ? 800 : 2_500) },
  throughput: {
    concurrencies: [16, 64],
    warmupMs: quick ? 200 : 500,
    durationMs: loopMs(quick ? 800 : 2_000),
  },
  contended: {
    contenders: 16,
    warmupMs: quick ? 200 : 500,
    durationMs: quick ? 1_200 : 4_000,
    /** Short TTL: a contender's stray keys on a minority of nodes block the others until they expire. */
    ttlMs: 1_000,
    holdMs: 1,
    /** Same for all three libraries, so each does the same work per acquire. */
    retry: { retryCount: 50, retryDelay: 10, retryJitter: 10 },
  },
  /**
   * Handoff: the contended scenario at the libraries' default retry timing (200 ± 100 ms), where
   * sleeping out retryDelay shows; time from release to another contender's acquire (the releaser
   * pauses 20 ms before contending again, else it mostly wins its own lock back).
   */
  handoff: {
    contenders: 16,
    warmupMs: quick ? 300 : 500,
    durationMs: quick ? 1_500 : 4_000,
    ttlMs: 1_000,
    holdMs: 1,
    retry: { retryCount: 100, retryDelay: 200, retryJitter: 100 },
    thinkMs: 20,
  },
  /** Sequential acquire+release with 2 of 5 masters SIGSTOPped: how long release takes. */
  hungRelease: { pausedNodes: [3, 4], warmupMs: 200, durationMs: quick ? 1_000 : 3_000 },
  paused: {
    workers: 8,
    healthyMs: quick ? 1_500 : 5_000,
    pausedMs: pauseS * 1_000,
    sampleEveryMs: quick ? 500 : 1_000,
  },
  snapshot: {
    /** Lock counts per node, each among otherKeysPerNode application hashes (the sizes). */
    lockCounts: quick ? [1_000, 10_000] : [1_000, 10_000, 50_000, 100_000],
    otherKeysPerNode: Number(process.env.BENCH_OTHER_KEYS ?? (quick ? 20_000 : 1_000_000)),
    pageRounds: quick ? 50 : 200,
    visibilityTrials: quick ? 10 : 50,
    viewers: 50,
    /** How long 1 viewer, then 50, look at the index (each fetches a page every second). */
    idleWindowMs: quick ? 3_000 : 10_000,
  },
  /** The console beside a busy application (busy-app.ts): runs per scenario, windows per phase. */
  busy: {
    runs: Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 3)),
    warmupMs: quick ? 1_500 : 3_000,
    windowMs: quick ? 3_000 : 8_000,
  },
  /** The console alone in a process: RSS once listed, event-loop delay under scrapers of the metrics. */
  memory: {
    lockCounts: quick ? [1_000, 10_000] : [1_000, 10_000, 50_000, 100_000],
    /** Clients scraping the metrics back to back, as `/api/metrics` serves them. */
    scrapers: 10,
    scrapeWindowMs: quick ? 3_000 : 10_000,
  },
  /** Readers against the console (readers.ts): a page of locks, an anonymous burst, metrics scrapers. */
  readers: {
    lockCount: quick ? 10_000 : 50_000,
    otherKeysPerNode: Number(process.env.BENCH_OTHER_KEYS ?? (quick ? 20_000 : 200_000)),
    pageRounds: quick ? 20 : 50,
    scrapeWindowMs: quick ? 3_000 : 10_000,
  },
  /**
   * Polling's idle cost (polling-cost.ts): keys per master, the CPU window, and how long to wait
   * for a first pass at the assumed key cost to end (at 1M keys it takes ~12 min: not waited for).
   */
  polling: {
    /** BENCH_POLLING_KEYS=250000 measures one size only. */
    keyCounts: process.env.BENCH_POLLING_KEYS
      ? process.env.BENCH_POLLING_KEYS.split(",").map(Number)
      : quick
        ? [10_000, 20_000]
        : [250_000, 1_000_000],
    windowMs: quick ? 4_000 : 30_000,
    measureWaitMs: quick ? 20_000 : 180_000,
  },
} as const;
