/**
 * The production server's memory and stalls: `next start` (run `next build` first) on masters you
 * started and seeded (`npx tsx bench/memory-next.ts <REDLOCK_NODES> [LOCK_MATCH]`). Waits until the
 * index is whole, then reports the server's RSS (the Next.js process) 3 s and 30 s later with its V8
 * heap then, and while ten clients scrape `/api/metrics` back to back, `/api/health` latency every
 * 50 ms and the server's own event-loop delay (the largest `nodejs_eventloop_lag_p99/max` any
 * scrape reported). BENCH_NODE_ARGS: flags for the server's node (e.g. `--max-semi-space-size=8`).
 * `LOCK_MATCH=none:*` gives the baseline: the same server and nodes, no locks.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "@/scripts/redis-masters";
import { median, percentile } from "./stats";

const [nodes, lockMatch = "*"] = process.argv.slice(2);
if (!nodes) throw new Error("usage: memory-next.ts <REDLOCK_NODES> [LOCK_MATCH]");
const NEXT_CLI = createRequire(import.meta.url).resolve("next/dist/bin/next");
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  REDLOCK_NODES: nodes,
  LOCK_MATCH: lockMatch,
  LOG_LEVEL: "warn",
  // Ten scrapers from one address: above the per-client read limit otherwise.
  CONSOLE_READ_LIMIT_PER_S: "100000",
};
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const server = spawn(
  process.execPath,
  [...nodeArgs, NEXT_CLI, "start", "-p", String(port), "-H", "127.0.0.1"],
  {
    env: {
      ...env,
      CONSOLE_ADMIN_TOKEN: randomBytes(32).toString("hex"),
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
  },
);

/** RSS of the server and its children, MB (Next may fork a worker). */
function rssMb(): number {
  const pids = [server.pid!];
  for (let at = 0; at < pids.length; at += 1) {
    const children = readFileSync(`/proc/${pids[at]}/task/${pids[at]}/children`, "utf8");
    pids.push(...children.split(" ").filter(Boolean).map(Number));
  }
  const kb = pids.map((pid) =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0),
  );
  return kb.reduce((sum, value) => sum + value, 0) / 1024;
}

const gauge = (text: string, name: string) =>
  Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);

try {
  for (;;) {
    const response = await fetch(`${base}/api/nodes`).catch(() => null);
    const body = response?.ok
      ? ((await response.json()) as { nodes: Array<{ index: { mode: string } | null }> })
      : null;
    if (body?.nodes.every((node) => node.index?.mode === "watching")) break;
    await sleep(1_000);
  }
  // Early: the first listing's garbage is still on the heap. Idle: 30 s on, once V8 has had time
  // to collect it (its memory reducer acts ~8 s after the last full collection).
  await sleep(3_000);
  const earlyRssMb = rssMb();
  await sleep(27_000);
  const idleRssMb = rssMb();
  const idleMetrics = await (await fetch(`${base}/api/metrics`)).text();
  /** The server's V8 heap, MB: used / committed, in all and per space (its own metrics). */
  const heapMb = (name: string) => Math.round(gauge(idleMetrics, name) / 1e5) / 10;
  const idleHeap = {
    usedMb: heapMb("redlock_console_nodejs_heap_size_used_bytes"),
    committedMb: heapMb("redlock_console_nodejs_heap_size_total_bytes"),
    externalMb: heapMb("redlock_console_nodejs_external_memory_bytes"),
    spaces: Object.fromEntries(
      [
        ...idleMetrics.matchAll(
          /^redlock_console_nodejs_heap_space_size_(used|total)_bytes\{space="(\w+)"\} (\S+)$/gm,
        ),
      ].map(([, kind, space, bytes]) => [`${space}.${kind}`, Math.round(Number(bytes) / 1e5) / 10]),
    ),
  };
  const locks = (await (await fetch(`${base}/api/locks?limit=1`)).json()) as { total?: number };
  let peakRssMb = idleRssMb;
  let lagP99S = 0;
  let lagMaxS = 0;
  const healthMs: number[] = [];
  const endAt = performance.now() + 10_000;
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, rssMb())), 100);
  await Promise.all([
    ...Array.from({ length: 10 }, async () => {
      while (performance.now() < endAt) {
        const response = await fetch(`${base}/api/metrics`);
        const text = await response.text();
        if (!response.ok) throw new Error(`/api/metrics answered ${response.status}: ${text}`);
        lagP99S = Math.max(
          lagP99S,
          gauge(text, "redlock_console_nodejs_eventloop_lag_p99_seconds"),
        );
        lagMaxS = Math.max(
          lagMaxS,
          gauge(text, "redlock_console_nodejs_eventloop_lag_max_seconds"),
        );
      }
    }),
    (async () => {
      while (performance.now() < endAt) {
        const startedAt = performance.now();
        await fetch(`${base}/api/health`);
        healthMs.push(performance.now() - startedAt);
        await sleep(50);
      }
    })(),
  ]);
  clearInterval(sampler);
  process.stdout.write(
    `${JSON.stringify({ lockMatch, locks: locks.total, earlyRssMb, idleRssMb, idleHeap, peakRssMb, lagP99Ms: lagP99S * 1000, lagMaxMs: lagMaxS * 1000, healthP50Ms: median(healthMs), healthP99Ms: percentile(healthMs, 99) })}\n`,
  );
} finally {
  server.kill("SIGTERM");
}
