import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * A test file names its group in a comment near its top, so that moving or renaming it keeps its
 * group (docs/testing.md):
 * - `// test-group: timed`: faults and real waits (SIGSTOPped masters, TTLs and heartbeat windows
 *   of seconds). These run after the parallel group, TIMED_WORKERS at a time, most on masters of
 *   their own; they spend their time waiting, so two share the cores;
 * - `// test-group: alone`: files that load the machine themselves (the torture's worker
 *   processes, 100k-key keyspaces, three console processes): nothing else runs beside them.
 * Every other file runs in the parallel group.
 */
const GROUP_MARKER = /^\/\/ test-group: (timed|alone)$/m;
/** The marker must sit in a file's first lines (its header), not anywhere in its body. */
const MARKER_HEADER_LINES = 20;

function filesMarked(group: "timed" | "alone"): string[] {
  const root = import.meta.dirname;
  return ["lib", "test", "scripts"].flatMap((folder) =>
    readdirSync(path.join(root, folder), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".test.ts") && !file.includes("node_modules"))
      .map((file) => `${folder}/${file.split(path.sep).join("/")}`)
      .filter((file) => {
        const header = readFileSync(path.join(root, file), "utf8")
          .split("\n", MARKER_HEADER_LINES)
          .join("\n");
        return GROUP_MARKER.exec(header)?.[1] === group;
      }),
  );
}

const TIMED_FILES = filesMarked("timed");
const ALONE_FILES = filesMarked("alone");

const SERIAL_FILES = [...TIMED_FILES, ...ALONE_FILES];

/**
 * Timed files at once: 3 (see GROUP_MARKER). They assert only what holds at any speed (issue 48,
 * docs/testing.md) and spend their time waiting on TTLs and stopped processes.
 */
const TIMED_WORKERS = Number(process.env.TEST_TIMED_WORKERS ?? 3);

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
