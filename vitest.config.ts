import path from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * Files that measure time against a tight bound (an abort within 100 ms of a notice, a wait timed
 * to 50 ms, a heartbeat's age): they run after the parallel group, TIMED_WORKERS at a time, most
 * on masters of their own (the others on their group's five, under keys of their own). Most of
 * their time is spent waiting on real TTLs, heartbeat windows and SIGSTOPped processes, so two of
 * them share the cores; the files that load the machine themselves (ALONE_FILES) run after them,
 * one at a time.
 */
const TIMED_FILES = [
  "test/server/session-states.test.ts",
  "test/server/safe-unlock-console.test.ts",
  "test/server/safe-every-path.test.ts",
  "test/server/liveness-faults.test.ts",
  "test/server/contention-waits.test.ts",
  "test/server/expired-tombstone-wake.test.ts",
  "test/redlock/safe-unlock.test.ts",
  "test/redlock/session.test.ts",
  "test/redlock/hear-every-path.test.ts",
  "test/redlock/using-late-extension.test.ts",
  // Seen failing beside parallel files on a loaded machine: a restart timed to a second's tick,
  // a holder SIGSTOPped past its heartbeat window, a cluster resharding.
  "test/torture/quarantine.test.ts",
  "test/server/holder-session-gone.test.ts",
  "test/server/cluster-console.test.ts",
  // A failed acquire within one node timeout plus its retries.
  "test/redlock/faults.test.ts",
];

/**
 * Files that load the machine themselves (the torture's worker processes, 100k-key keyspaces,
 * three console processes, a CPU share measured) or time one call against node-redlock's: nothing
 * else runs beside them.
 */
const ALONE_FILES = [
  "test/torture/torture.test.ts",
  "test/server/polling-cost.test.ts",
  "test/server/snapshot-scale.test.ts",
  "test/server/hidden-classes.test.ts",
  "test/redlock/first-acquire.test.ts",
  // Three console processes, a writer's lease timed to 2 s, SIGKILL and SIGSTOP of the writer.
  "test/server/replicas.test.ts",
  // Pauses and empty restarts of masters, 14 contenders.
  "test/redlock/semaphore-torture.test.ts",
];

const SERIAL_FILES = [...TIMED_FILES, ...ALONE_FILES];

/** Timing-bound files at once: 2 (see TIMED_FILES). */
const TIMED_WORKERS = Number(process.env.TEST_TIMED_WORKERS ?? 2);

/** Test files at once in the parallel group: 3 on this project's 2-core CI machine. */
const PARALLEL_WORKERS = Number(process.env.TEST_WORKERS ?? 3);

/**
 * The node-redis re-run of the algorithm's tests. On CI (CI set) only the files where the client
 * kind changes what runs: the driver's contract (one case per RedisDriver member), the cluster
 * driver, the session's subscriber and notices, the first acquire; everywhere else, and with
 * TEST_ALL_CLIENTS=1, every algorithm test runs again with node-redis clients.
 */
const NODE_REDIS_ON_CI = [
  "test/redlock/driver.test.ts",
  "test/redlock/cluster-nodes.test.ts",
  "test/redlock/session.test.ts",
  "test/redlock/hear-every-path.test.ts",
  "test/redlock/first-acquire.test.ts",
];
const nodeRedisFiles =
  process.env.CI && process.env.TEST_ALL_CLIENTS !== "1"
    ? NODE_REDIS_ON_CI
    : ["test/redlock/**/*.test.ts"];
// batch and handoff (pub/sub): ioredis only; settings, quorum and protocol: no client of the
// project's kind.
const IOREDIS_ONLY = [
  "test/redlock/batch.test.ts",
  "test/redlock/handoff.test.ts",
  "test/redlock/protocol.test.ts",
  "test/redlock/settings.test.ts",
  "test/redlock/quorum.test.ts",
  // Its contenders use ioredis clients of their own: the client kind changes nothing there.
  "test/redlock/semaphore-torture.test.ts",
];

/** The groups, in the order they run, with their files and how many run at once. */
const GROUPS = {
  parallel: { order: 0, workers: PARALLEL_WORKERS, files: null },
  timed: { order: 1, workers: TIMED_WORKERS, files: TIMED_FILES },
  alone: { order: 2, workers: 1, files: ALONE_FILES },
} as const;

/** One project per client kind and group: the parallel group first, then the timed, then alone. */
function project(
  clientKind: "ioredis" | "node-redis",
  group: keyof typeof GROUPS,
  include: string[],
  exclude: string[],
): TestProjectInlineConfiguration {
  const { order, workers, files } = GROUPS[group];
  return {
    extends: true,
    test: {
      name: group === "parallel" ? clientKind : `${clientKind} (${group})`,
      include: files ? include.filter((file) => files.includes(file)) : include,
      exclude: files ? exclude : [...exclude, ...SERIAL_FILES],
      provide: { clientKind },
      // Projects of one group share its workers (vitest wants one count per group).
      maxWorkers: workers,
      sequence: { groupOrder: order },
    },
  };
}

const ioredisFiles = ["lib/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"];
const serialNodeRedis = nodeRedisFiles.flatMap((glob) =>
  glob.includes("*") ? SERIAL_FILES.filter((file) => file.startsWith("test/redlock/")) : [glob],
);

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // Tests run on the library's source, not on its build. The subpath first: the root's alias
      // matches every import that starts with it.
      "@redlock-console/redlock/protocol": path.resolve(
        import.meta.dirname,
        "lib/redlock/protocol.ts",
      ),
      "@redlock-console/redlock": path.resolve(import.meta.dirname, "lib/redlock/index.ts"),
    },
  },
  test: {
    projects: [
      project("ioredis", "parallel", ioredisFiles, []),
      project("node-redis", "parallel", nodeRedisFiles, IOREDIS_ONLY),
      project("ioredis", "timed", SERIAL_FILES, []),
      project("node-redis", "timed", serialNodeRedis, IOREDIS_ONLY),
      project("ioredis", "alone", SERIAL_FILES, []),
      project("node-redis", "alone", serialNodeRedis, IOREDIS_ONLY),
    ],
    globalSetup: ["test/global-setup.ts"],
    // Tests that pause or kill masters start their own; the shared five are never faulted.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    server: { deps: { inline: ["server-only"] } },
    alias: { "server-only": path.resolve(import.meta.dirname, "test/server-only-stub.ts") },
    // Each file's duration, for measuring the suite (scripts/test-durations.ts reads it).
    reporters: ["default", ["json", { outputFile: ".data/vitest-report.json" }]],
  },
});
