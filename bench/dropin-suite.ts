/**
 * node-redlock 5.0.0-beta.2's own test suite (its src/single.test.ts and src/multi.test.ts, kept
 * unchanged in bench/dropin/node-redlock/*.upstream) run against this project's packed package,
 * as a user swapping `redlock` for `@redlock-console/redlock` would (issue 40, item 6):
 *   npx tsx bench/dropin-suite.ts                  one run against ours
 *   RUNS=3 BUSY=1 npx tsx bench/dropin-suite.ts    three runs, two busy loops taking the cores half the time
 *   LIBRARY=node-redlock npx tsx bench/dropin-suite.ts    the same suite against node-redlock itself
 * The package is `npm pack`ed (its prepack builds it) and unpacked under .data/dropin; `ava` is a
 * shim of the few calls the suite makes (bench/dropin/ava.mjs), `ioredis` the real one with the
 * suite's host names mapped to local masters and clusters (bench/dropin/ioredis.mjs). Both files
 * run at once, each test of a file concurrently, as ava runs them. Prints the passes out of 24.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import ts from "typescript";
import { startCluster, type Cluster } from "@/scripts/redis-cluster";
import { freePort, startMasters } from "@/scripts/redis-masters";
import { startBusyLoops } from "./busy-loops";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HERE = path.join(ROOT, "bench/dropin");
const WORK = path.join(ROOT, ".data/dropin");
const SUITE = path.join(WORK, "suite");
const FILES = ["single", "multi"] as const;
const TOTAL_TESTS = 24;
const FILE_TIMEOUT_MS = 120_000;

interface Result {
  title: string;
  ok: boolean;
  errors: string[];
}

/** The packed package under .data/dropin/node_modules, beside the ava and ioredis shims. */
function prepare(library: string): void {
  rmSync(WORK, { recursive: true, force: true });
  const modules = path.join(WORK, "node_modules");
  const ours = path.join(modules, "@redlock-console/redlock");
  mkdirSync(ours, { recursive: true });
  execFileSync("npm", ["pack", "--pack-destination", WORK], {
    cwd: path.join(ROOT, "lib/redlock"),
    stdio: "ignore",
  });
  const tarball = readdirSync(WORK).find((file) => file.endsWith(".tgz"))!;
  execFileSync("tar", ["xzf", path.join(WORK, tarball), "-C", ours, "--strip-components=1"]);
  mkdirSync(path.join(modules, "ava"));
  cpSync(path.join(HERE, "ava.mjs"), path.join(modules, "ava/index.mjs"));
  mkdirSync(path.join(modules, "ioredis"));
  const realIoredis = pathToFileURL(createRequire(import.meta.url).resolve("ioredis")).href;
  const ioredisShim = readFileSync(path.join(HERE, "ioredis.mjs"), "utf8");
  writeFileSync(
    path.join(modules, "ioredis/index.mjs"),
    ioredisShim.replaceAll("__REAL_IOREDIS__", realIoredis),
  );
  for (const name of ["ava", "ioredis"])
    writeFileSync(
      path.join(modules, name, "package.json"),
      JSON.stringify({ name, type: "module", exports: "./index.mjs" }),
    );
  mkdirSync(SUITE);
  writeFileSync(path.join(SUITE, "package.json"), JSON.stringify({ type: "module" }));
  // The suite's "./index.js" is the library under test.
  const target = library === "ours" ? "@redlock-console/redlock" : "redlock";
  writeFileSync(
    path.join(SUITE, "index.js"),
    `export * from "${target}";\nexport { default } from "${target}";\n`,
  );
  for (const file of FILES) {
    const source = readFileSync(path.join(HERE, `node-redlock/${file}.test.ts.upstream`), "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(path.join(SUITE, `${file}.test.js`), outputText);
  }
}

function runFile(file: string, hosts: Record<string, number>): Promise<Result[]> {
  const child = spawn(process.execPath, [`${file}.test.js`], {
    cwd: SUITE,
    env: { ...process.env, DROPIN_HOSTS: JSON.stringify(hosts) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // A test that never settles would hold the run: the file's unreported tests count as failed.
  const timer = setTimeout(() => child.kill("SIGKILL"), FILE_TIMEOUT_MS);
  return new Promise((resolve) =>
    child.on("exit", () => {
      clearTimeout(timer);
      resolve(
        output
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as Result),
      );
    }),
  );
}

/**
 * Every node emptied between runs, as each run of node-redlock's CI starts on fresh containers.
 * Needed for ours: the sessions' keys (redlock:session:{<id>}, a 60 s window) outlive a run, and
 * the suite's before hook deletes KEYS * in one DEL, which a cluster refuses across slots.
 */
async function flushAll(ports: readonly number[]): Promise<void> {
  await Promise.all(
    ports.map(async (port) => {
      const client = new Redis({ port, host: "127.0.0.1" });
      await client.flushall();
      client.disconnect();
    }),
  );
}

const library = process.env.LIBRARY ?? "ours";
const runs = Number(process.env.RUNS ?? 1);
prepare(library);
const masters = await startMasters({ count: 4, dataDir: ".data/dropin/masters" });
const clusters: Cluster[] = [];
let busy: ReturnType<typeof startBusyLoops> = [];
try {
  for (let index = 0; index < 4; index += 1) clusters.push(await startCluster(3));
  if (process.env.BUSY === "1") busy = startBusyLoops();
  const clusterPorts = clusters.flatMap((cluster) => cluster.ports);
  const [single, a, b, c] = masters.masters.map((master) => master.port);
  const [singleCluster, clusterA, clusterB, clusterC] = clusters.map((each) => each.seeds[0]!.port);
  const hosts = {
    "127.0.0.1": await freePort(),
    "redis-single-instance": single!,
    "redis-single-cluster-1": singleCluster!,
    "redis-multi-instance-a": a!,
    "redis-multi-instance-b": b!,
    "redis-multi-instance-c": c!,
    "redis-multi-cluster-a-1": clusterA!,
    "redis-multi-cluster-b-1": clusterB!,
    "redis-multi-cluster-c-1": clusterC!,
  };
  for (let run = 1; run <= runs; run += 1) {
    if (run > 1) await flushAll([...masters.masters.map((master) => master.port), ...clusterPorts]);
    const results = (await Promise.all(FILES.map((file) => runFile(file, hosts)))).flat();
    const passed = results.filter((result) => result.ok).length;
    console.log(
      `run ${run} (${library}${busy.length ? ", busy loops" : ""}): ${passed}/${TOTAL_TESTS}`,
    );
    if (results.length < TOTAL_TESTS)
      console.log(`  ${TOTAL_TESTS - results.length} never reported`);
    for (const failed of results.filter((result) => !result.ok))
      console.log(`  FAIL ${failed.title}: ${failed.errors.join("; ").slice(0, 300)}`);
  }
} finally {
  for (const child of busy) child.kill("SIGKILL");
  await Promise.all(clusters.map((cluster) => cluster.stop()));
  await masters.stop();
}
