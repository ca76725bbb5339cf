import path from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * Files that measure time against a tight bound (an abort within 100 ms of a notice, a wait timed
 * to 50 ms, a heartbeat's age, a first acquire against node-redlock's), or that load the machine
 * themselves (the torture's worker processes, 100k-key keyspaces, command counts): they run one
 * at a time, after the rest, so that no other test file shares the cores with them. Everything
 * else runs PARALLEL_WORKERS files at a time: most of a file's time is spent waiting on real TTLs
 * and real servers, not on the CPU.
 */
const SERIAL_FILES = [
  "test/torture/torture.test.ts",
  "test/server/session-states.test.ts",
  "test/server/safe-unlock-console.test.ts",
  "test/server/safe-every-path.test.ts",
  "test/server/liveness-faults.test.ts",
  "test/server/contention-waits.test.ts",
  "test/server/expired-tombstone-wake.test.ts",
  "test/server/polling-cost.test.ts",
  "test/server/snapshot-scale.test.ts",
  "test/server/hidden-classes.test.ts",
  "test/redlock/safe-unlock.test.ts",
  "test/redlock/session.test.ts",
  "test/redlock/hear-every-path.test.ts",
  "test/redlock/first-acquire.test.ts",
  "test/redlock/using-late-extension.test.ts",
  // Seen failing beside parallel files on a loaded machine: a restart timed to a second's tick,
  // a holder SIGSTOPped past its heartbeat window, a cluster resharding.
  "test/torture/quarantine.test.ts",
  "test/server/holder-session-gone.test.ts",
  "test/server/cluster-console.test.ts",
  // A failed acquire within one node timeout plus its retries.
  "test/redlock/faults.test.ts",
  // Three console processes, a writer's lease timed to 2 s, SIGKILL and SIGSTOP of the writer.
  "test/server/replicas.test.ts",
  // Pauses and empty restarts of masters, 14 contenders: loads the machine itself.
  "test/redlock/semaphore-torture.test.ts",
];

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

/** One project per client kind and group: the parallel group first, then the serial one. */
function project(
  clientKind: "ioredis" | "node-redis",
  group: "parallel" | "serial",
  include: string[],
  exclude: string[],
): TestProjectInlineConfiguration {
  const serial = group === "serial";
  return {
    extends: true,
    test: {
      name: serial ? `${clientKind} (serial)` : clientKind,
      include: serial ? include.filter((file) => SERIAL_FILES.includes(file)) : include,
      exclude: serial ? exclude : [...exclude, ...SERIAL_FILES],
      provide: { clientKind },
      // Projects of one group share its workers (vitest wants one count per group).
      maxWorkers: serial ? 1 : PARALLEL_WORKERS,
      sequence: { groupOrder: serial ? 1 : 0 },
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
      project("ioredis", "serial", SERIAL_FILES, []),
      project("node-redis", "serial", serialNodeRedis, IOREDIS_ONLY),
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
