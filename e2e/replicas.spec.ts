/**
 * Issue 43 in the browser: the Events page through a round-robin balancer in front of two console
 * replicas (`next start`, the stack's build) on one state store. Each replica in turn is SIGKILLed
 * while the page is open (one of the two holds its event stream): the page says it is not live,
 * reconnects through the balancer to the other replica with its Last-Event-ID, and shows the
 * transitions made meanwhile, each once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { EventsResponse } from "@/lib/api";
import { freePort, startMasters, type Masters as StateStore } from "@/scripts/redis-masters";
import { NEXT_CLI } from "../scripts/next-build";
import { RoundRobinProxy } from "../test/round-robin-proxy";
import { E2E_PORT, readStack } from "./stack-file";
import { expect, test } from "./support/fixtures";

const PREFIX = `e2e:replicas:${randomBytes(3).toString("hex")}:`;
/** Beside the stack's console (E2E_PORT), cluster.spec.ts's (+ 1) and key-cap.spec.ts's (+ 2). */
const PROXY_PORT = E2E_PORT + 3;

let stateStore: StateStore;
let proxy: RoundRobinProxy;
const replicas = new Map<string, { child: ChildProcess; port: number }>();

async function startReplica(id: string): Promise<number> {
  const stack = readStack();
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [NEXT_CLI, "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      stdio: "inherit",
      env: {
        ...process.env,
        REDLOCK_NODES: stack.urls.join(","),
        CONSOLE_ADMIN_TOKEN: stack.adminToken,
        CONSOLE_STATE_URL: stateStore.urls[0],
        CONSOLE_REPLICA_ID: id,
        CONSOLE_WRITER_LEASE_MS: "2000",
        CONSOLE_PROBE_INTERVAL_MS: "0",
        LOCK_MATCH: `${PREFIX}*`,
        LOG_LEVEL: "warn",
      },
    },
  );
  // Started, and its own history folding (no gap open): a lock taken before that is, for this
  // replica, inside its start's gap, and a takeover by it would rightly show a gap there.
  for (let waitedMs = 0; ; waitedMs += 200) {
    const events = await fetch(`http://127.0.0.1:${port}/api/events?limit=1`).catch(() => null);
    if (events?.ok && !((await events.json()) as EventsResponse).horizon.gapOpen) break;
    if (waitedMs > 60_000) throw new Error(`replica ${id} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  replicas.set(id, { child, port });
  proxy?.setUpstreams([...replicas.values()].map((replica) => replica.port));
  return port;
}

async function kill(id: string): Promise<void> {
  const replica = replicas.get(id)!;
  replicas.delete(id);
  const exited = new Promise((resolve) => replica.child.once("exit", resolve));
  replica.child.kill("SIGKILL");
  await exited;
  proxy.setUpstreams([...replicas.values()].map((r) => r.port));
}

test.use({ baseURL: `http://127.0.0.1:${PROXY_PORT}` });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  stateStore = await startMasters({ count: 1, dataDir: ".data/e2e/replicas-state" });
  await Promise.all([startReplica("r1"), startReplica("r2")]);
  proxy = await RoundRobinProxy.start(
    [...replicas.values()].map((replica) => replica.port),
    PROXY_PORT,
  );
});

test.afterAll(async () => {
  await proxy?.close();
  for (const { child } of replicas.values()) child.kill("SIGTERM");
  await stateStore?.stop();
});

test("a replica dies under an open Events page: it reconnects to the other and shows what happened meanwhile, once", async ({
  page,
  masters,
  consoleErrors,
}) => {
  test.setTimeout(120_000);
  // The killed replica's requests fail in the browser while it reconnects.
  consoleErrors.allow(/Failed to load resource|ERR_|network/i);
  await page.goto(`/events?match=${encodeURIComponent(`${PREFIX}*`)}`);
  const status = page.getByTestId("live-status");
  await expect(status).toHaveAttribute("data-live", "live", { timeout: 20_000 });
  const feed = page.getByRole("table", { name: "Lock transitions" });
  // setOn writes the nodes one after another: a later node can move the quorum's expiry (an
  // "extended" row); the acquisition is what must show once.
  const acquisitionsOf = (resource: string) =>
    feed.locator("tbody tr", { hasText: resource }).filter({ hasText: "acquired" });
  const acquire = async (name: string) => {
    const resource = `${PREFIX}${name}`;
    await masters.setOn([0, 1, 2, 3, 4], resource, randomBytes(20).toString("hex"), 120_000);
    return resource;
  };
  // Every state the status takes from now on, as the browser showed it.
  await page.evaluate(() => {
    const element = document.querySelector('[data-testid="live-status"]')!;
    const seen: string[] = [];
    (window as unknown as { liveStates: string[] }).liveStates = seen;
    new MutationObserver(() => seen.push(element.getAttribute("data-live") ?? "")).observe(
      element,
      { attributes: true, attributeFilter: ["data-live"] },
    );
  });
  const before = await acquire("before");
  await expect(acquisitionsOf(before)).toHaveCount(1, { timeout: 15_000 });
  // One of the two holds the page's stream: each is killed in turn, the other restarted between.
  for (const [victim, next] of [
    ["r1", "r3"],
    ["r2", "r4"],
  ] as const) {
    await kill(victim);
    const meanwhile = await acquire(`after-${victim}`);
    await expect(status).toHaveAttribute("data-live", "live", { timeout: 20_000 });
    await expect(acquisitionsOf(meanwhile)).toHaveCount(1, {
      timeout: 20_000,
    });
    await expect(acquisitionsOf(before)).toHaveCount(1);
    await startReplica(next);
  }
  // The replica that held the stream died once: the page said it was not live, then live again.
  const states = await page.evaluate(
    () => (window as unknown as { liveStates: string[] }).liveStates,
  );
  console.log(`Events page status after the kills: ${states.join(" → ")}`);
  expect(states.some((state) => state !== "live")).toBe(true);
  expect(states.at(-1)).toBe("live");
  await masters.deleteEverywhere(
    before,
    ...["r1", "r2"].map((victim) => `${PREFIX}after-${victim}`),
  );
});
