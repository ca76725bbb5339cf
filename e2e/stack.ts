/**
 * Playwright's webServer: five real redis-server masters and the built console on them.
 * Writes .data/e2e/stack.json (URLs, PIDs, admin token, port) for the specs, builds the app only
 * when a source file is newer than the last build, and stops everything on SIGTERM/SIGINT.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { startMasters } from "../scripts/redis-masters";
import { E2E_PORT, STACK_FILE, type Stack } from "./stack-file";

// Run Next's CLI with this Node directly (not through npx), so signals reach the server itself.
const NEXT_CLI = createRequire(import.meta.url).resolve("next/dist/bin/next");
const BUILD_INPUTS = ["app", "components", "lib", "instrumentation.ts", "proxy.ts", "next.config.js", "package.json", "tsconfig.json"];

function newestMtimeMs(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(entry).reduce((newest, name) => Math.max(newest, newestMtimeMs(path.join(entry, name))), 0);
}

function buildIsStale(): boolean {
  const buildId = ".next/BUILD_ID";
  if (!existsSync(buildId)) return true;
  const builtAtMs = statSync(buildId).mtimeMs;
  return BUILD_INPUTS.some((input) => newestMtimeMs(input) > builtAtMs);
}

const masters = await startMasters({ count: 5, dataDir: ".data/e2e/masters" });
const stack: Stack = {
  urls: masters.urls,
  pids: masters.masters.map((master) => master.pid()),
  adminToken: randomBytes(24).toString("hex"),
  port: E2E_PORT,
};
mkdirSync(path.dirname(STACK_FILE), { recursive: true });
writeFileSync(STACK_FILE, JSON.stringify(stack, null, 2));

const env = {
  ...process.env,
  REDLOCK_NODES: stack.urls.join(","),
  CONSOLE_ADMIN_TOKEN: stack.adminToken,
  CONSOLE_READ_ONLY: "false",
  // Probe often so the latency chart has points within a test's time budget.
  CONSOLE_PROBE_INTERVAL_MS: process.env.CONSOLE_PROBE_INTERVAL_MS ?? "1000",
  // Every audit line at info level would bury the test report; warnings and errors still show.
  LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
};

if (buildIsStale()) {
  console.log("[e2e] sources changed since the last build: running next build");
  const build = spawnSync(process.execPath, [NEXT_CLI, "build"], { stdio: "inherit", env });
  if (build.status !== 0) {
    await masters.stop();
    process.exit(build.status ?? 1);
  }
}

const server = spawn(process.execPath, [NEXT_CLI, "start", "-p", String(E2E_PORT), "-H", "127.0.0.1"], {
  stdio: "inherit",
  env,
});

let stopping = false;
async function shutdown(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (server.exitCode === null) server.kill("SIGTERM");
  await masters.stop();
  process.exit(exitCode);
}

server.on("exit", (code) => void shutdown(code ?? 1));
process.on("SIGTERM", () => void shutdown(0));
process.on("SIGINT", () => void shutdown(0));
