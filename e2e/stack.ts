/**
 * Playwright's webServer: five real redis-server masters and the built console on them.
 * Writes .data/e2e/stack.json (URLs, PIDs, admin token, port) for the specs, builds the app only
 * when a source file is newer than the last build, and stops everything on SIGTERM/SIGINT.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildIfStale, NEXT_CLI } from "../scripts/next-build";
import { startMasters } from "@/scripts/redis-masters";
import { E2E_PORT, STACK_FILE, type Stack } from "./stack-file";

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

const buildStatus = buildIfStale(env, (line) => console.log(`[e2e] ${line}`));
if (buildStatus !== 0) {
  await masters.stop();
  process.exit(buildStatus);
}

const server = spawn(
  process.execPath,
  [NEXT_CLI, "start", "-p", String(E2E_PORT), "-H", "127.0.0.1"],
  {
    stdio: "inherit",
    env,
  },
);

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
