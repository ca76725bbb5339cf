/**
 * One of Playwright's webServers (stack E2E_STACK_INDEX): five real redis-server masters and the
 * built console on them. Writes .data/e2e/stack-<index>.json (URLs, PIDs, admin token, port) for the specs, builds the app only
 * when a source file is newer than the last build, and stops everything on SIGTERM/SIGINT.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildIfStale, NEXT_CLI } from "../scripts/next-build";
import { startMasters } from "@/scripts/redis-masters";
import { startTestProvider, TEST_RBAC } from "@/test/support/oidc-provider";
import { E2E_PORT, MASTERS_DIR, readStack, STACK_FILE, type Stack } from "./stack-file";

const masters = await startMasters({ count: 5, dataDir: MASTERS_DIR });
const consoleUrl = `http://127.0.0.1:${E2E_PORT}`;
const oidcClient = { clientId: "redlock-console", clientSecret: randomBytes(24).toString("hex") };
// A real OpenID Provider for e2e/sign-in.spec.ts; the other specs use the break-glass token.
const provider = await startTestProvider({
  clients: [
    {
      ...oidcClient,
      redirectUris: [`${consoleUrl}/api/auth/callback`],
      postLogoutRedirectUris: [`${consoleUrl}/login?signed_out=1`],
    },
  ],
});
const stack: Stack = {
  urls: masters.urls,
  pids: masters.masters.map((master) => master.pid()),
  adminToken: randomBytes(24).toString("hex"),
  port: E2E_PORT,
  oidcIssuer: provider.issuer,
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
  CONSOLE_OIDC_ISSUER: provider.issuer,
  CONSOLE_OIDC_CLIENT_ID: oidcClient.clientId,
  CONSOLE_OIDC_CLIENT_SECRET: oidcClient.clientSecret,
  CONSOLE_PUBLIC_URL: consoleUrl,
  CONSOLE_OIDC_PROVIDER_NAME: "Test IdP",
  // People arrive as an authenticating proxy names them (e2e/roles.spec.ts): Playwright's requests
  // come from 127.0.0.1, and only those carrying X-Forwarded-User are a person.
  CONSOLE_AUTH_PROXY_ADDRESSES: "127.0.0.1",
  // The test provider's people (e2e/sign-in.spec.ts) and the proxy's (e2e/roles.spec.ts).
  CONSOLE_RBAC: JSON.stringify([
    ...(JSON.parse(TEST_RBAC) as unknown[]),
    { group: "lock-operators", role: "operator", services: ["redlock-console"] },
  ]),
};

const buildStatus = buildIfStale(env, (line) => console.log(`[e2e] ${line}`));
if (buildStatus !== 0) {
  await masters.stop();
  await provider.stop();
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
  await provider.stop();
  // A spec that restarted a master (e2e/support/restart-master.ts) left its new process in stack.json.
  for (const pid of readStack().pids.filter((pid) => !stack.pids.includes(pid))) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  process.exit(exitCode);
}

server.on("exit", (code) => void shutdown(code ?? 1));
process.on("SIGTERM", () => void shutdown(0));
process.on("SIGINT", () => void shutdown(0));
