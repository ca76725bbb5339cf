/**
 * `npm start` and `npm run dev` (`--dev`): serves the console. `npm start` builds Next.js only when
 * a source changed since the last build (scripts/next-build.ts), so a restart takes seconds.
 * Without REDLOCK_NODES it starts five local redis-server masters (embedded mode, data under
 * .data/console-masters, AOF on) and, without CONSOLE_ADMIN_TOKEN, generates one and prints it.
 * The environment is validated before Next.js starts, so a bad variable stops here with one
 * message listing every problem. SIGINT/SIGTERM stop Next.js and the embedded masters.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { ConfigError, parseConfig } from "../lib/server/config";
import { buildIfStale, NEXT_CLI } from "./next-build";
import { nextServerArgs, probeHost } from "./next-args";
import { MastersError, startMasters, type Masters } from "@/scripts/redis-masters";

const { values } = parseArgs({ options: { dev: { type: "boolean", default: false } } });
const port = process.env.PORT ?? "3000";
const MASTERS_DIR = ".data/console-masters";

async function embeddedEnv(
  env: NodeJS.ProcessEnv,
): Promise<{ env: NodeJS.ProcessEnv; masters?: Masters; said: string[] }> {
  const next = { ...env };
  const said: string[] = [];
  const say = (line: string) => (console.log(line), said.push(line));
  let masters: Masters | undefined;
  if (!next.REDLOCK_NODES) {
    masters = await startMasters({ count: 5, dataDir: MASTERS_DIR, persistence: true });
    next.REDLOCK_NODES = masters.urls.join(",");
    say(`Embedded mode: five local Redis masters on ${masters.urls.join(", ")}`);
    say(
      `  data (AOF) under ${MASTERS_DIR}/<port>; to restart one, see "Restart one embedded master" in README.md`,
    );
  }
  if (!next.CONSOLE_ADMIN_TOKEN && next.CONSOLE_READ_ONLY !== "true") {
    next.CONSOLE_ADMIN_TOKEN = randomBytes(24).toString("base64url");
    say(`Generated admin token (CONSOLE_ADMIN_TOKEN): ${next.CONSOLE_ADMIN_TOKEN}`);
  }
  return { env: next, masters, said };
}

/**
 * Prints the console's address once /api/health answers (a readiness line scripts wait for). The
 * console itself (nodes, latency probe) starts at boot in instrumentation.ts, not on this request.
 */
async function announceWhenReady(host: string, again: readonly string[]): Promise<void> {
  for (let tries = 0; tries < 120; tries += 1) {
    try {
      const response = await fetch(`http://${probeHost(host)}:${port}/api/health`);
      if (response.ok) {
        console.log(`Redlock Console: http://${probeHost(host)}:${port} (listening on ${host})`);
        // Said again: a first build's output has scrolled them away by now.
        for (const line of again) console.log(line);
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function stopOnSignals(child: ChildProcess, masters: Masters | undefined): void {
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await masters?.stop();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  child.on("exit", (code) => void stop(code ?? 1));
}

async function main(): Promise<void> {
  const { env, masters, said } = await embeddedEnv(process.env);
  let host: string;
  try {
    host = parseConfig(env).host;
  } catch (error) {
    await masters?.stop();
    throw error;
  }
  if (!values.dev) {
    const buildStatus = buildIfStale(env, (line) => console.log(line));
    if (buildStatus !== 0) {
      await masters?.stop();
      process.exit(buildStatus);
    }
  }
  const args = nextServerArgs({ dev: values.dev, port, host });
  const child = spawn(process.execPath, [NEXT_CLI, ...args], { env, stdio: "inherit" });
  stopOnSignals(child, masters);
  void announceWhenReady(host, said);
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError || error instanceof MastersError ? error.message : error,
  );
  process.exit(1);
});
