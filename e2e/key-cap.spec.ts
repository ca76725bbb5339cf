/**
 * Issue 32 row 9 in the browser: past CONSOLE_SCAN_MAX_KEYS, every node card and the overview say
 * in words that the list is incomplete and what to change, and a lock the index left out still
 * reads as held on its own page. A second console (next start on its own port, the stack's build)
 * on the stack's masters, with a cap of 100 and LOCK_MATCH narrowed to this spec's keys, so the
 * other specs' keys never count toward its cap.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { NEXT_CLI } from "../scripts/next-build";
import { LockDetailPage } from "./pages/lock-detail-page";
import { OverviewPage } from "./pages/overview-page";
import { E2E_PORT, readStack } from "./stack-file";
import { expect, test } from "./support/fixtures";
import { Masters } from "./support/redis";

const SCAN_MAX_KEYS = 100;
/** Other holders' locks per node: more than the cap. */
const OTHER_LOCKS = 150;
const PREFIX = `e2e-key-cap:${Date.now().toString(36)}:`;
const otherKeys = Array.from({ length: OTHER_LOCKS }, (_, index) => `${PREFIX}other:${index}`);

/** Beside the stack's console (E2E_PORT) and cluster.spec.ts's (E2E_PORT + 1). */
const PORT = E2E_PORT + 2;
let server: ChildProcess;
let masters: Masters;

/** One script per node: lock-shaped values (40-digit tokens with a TTL), as other holders leave. */
async function setOtherLocks(): Promise<void> {
  const script =
    "for i, key in ipairs(KEYS) do redis.call('SET', key, string.format('%040d', i), 'PX', 120000) end";
  await Promise.all(
    masters.clients.map((client) => client.eval(script, otherKeys.length, ...otherKeys)),
  );
}

test.use({ baseURL: `http://127.0.0.1:${PORT}` });

test.beforeAll(async () => {
  test.setTimeout(90_000);
  const stack = readStack();
  masters = new Masters(stack);
  await setOtherLocks();
  server = spawn(process.execPath, [NEXT_CLI, "start", "-p", String(PORT), "-H", "127.0.0.1"], {
    stdio: "inherit",
    env: {
      ...process.env,
      REDLOCK_NODES: stack.urls.join(","),
      CONSOLE_ADMIN_TOKEN: stack.adminToken,
      CONSOLE_READ_ONLY: "true",
      CONSOLE_PROBE_INTERVAL_MS: "0",
      LOCK_MATCH: `${PREFIX}*`,
      CONSOLE_SCAN_MAX_KEYS: String(SCAN_MAX_KEYS),
      // A relist every 2 s: the second test sees the cap lifted without waiting 5 minutes.
      CONSOLE_RESYNC_INTERVAL_MS: "2000",
      LOG_LEVEL: "warn",
    },
  });
  for (let waitedMs = 0; ; waitedMs += 200) {
    const health = await fetch(`http://127.0.0.1:${PORT}/api/health`).catch(() => null);
    if (health?.ok) break;
    if (waitedMs > 60_000) throw new Error("the capped console did not start");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
  await masters?.deleteEverywhere(...otherKeys, `${PREFIX}real`);
  await masters?.close();
});

test("past the key cap every node card and the overview say the list is incomplete, and a lock left out reads as held on its page", async ({
  page,
}) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  for (const id of ["node-1", "node-2", "node-3", "node-4", "node-5"]) {
    const notice = overview.nodeCard(id).getByTestId("node-index-truncated");
    await expect(notice).toContainText(
      `Key cap reached: ${SCAN_MAX_KEYS} lock keys indexed and others left out`,
    );
    await expect(notice).toContainText("Raise CONSOLE_SCAN_MAX_KEYS or narrow LOCK_MATCH.");
  }
  await expect(
    page.getByText("A node holds more lock keys than CONSOLE_SCAN_MAX_KEYS", { exact: false }),
  ).toBeVisible();

  // Taken after the cap was reached: the index leaves it out, the lock page reads the nodes.
  const real = `${PREFIX}real`;
  await masters.setOn([0, 1, 2, 3, 4], real, randomBytes(20).toString("hex"), 60_000);
  const detail = new LockDetailPage(page);
  await detail.goto(real);
  await expect(detail.summary.getByText("held", { exact: true })).toBeVisible();
  await expect(page.getByText("No node holds this resource now: it is free.")).toHaveCount(0);
});

test("once the other locks are gone, the next listing fits under the cap and the notices go", async ({
  page,
}) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  await expect(overview.nodeCard("node-1").getByTestId("node-index-truncated")).toBeVisible();
  await masters.deleteEverywhere(...otherKeys);
  // The relist every 2 s heals each node; the page polls.
  await expect(page.getByTestId("node-index-truncated")).toHaveCount(0, { timeout: 20_000 });
  await expect(
    page.getByText("A node holds more lock keys than CONSOLE_SCAN_MAX_KEYS", { exact: false }),
  ).toHaveCount(0);
});
