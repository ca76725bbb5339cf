/**
 * The console's memory and event-loop stalls (the `memory` section of `npm run bench`, or alone:
 * `npx tsx bench/memory.ts`): five masters holding application hashes plus 0 / 1k / 10k / 50k /
 * 100k locks each; per lock count, a fresh process runs the console alone (memory-child.ts) and
 * reports its RSS once listed, then its event-loop delay while ten clients scrape the metrics.
 * The 0-lock row is the baseline: the console's modules and connections, no locks.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Redis } from "ioredis";
import { plan } from "./config";
import { seedLocks, seedOtherHashes } from "./seed";

type Figures = Record<string, number>;
const LOCK_PREFIX = "lock:";
const CHILD = fileURLToPath(new URL("./memory-child.ts", import.meta.url));
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** Runs memory-child.ts on the masters and parses the one line of JSON it prints. */
function measureConsole(urls: readonly string[]): Promise<Figures> {
  const { scrapers, scrapeWindowMs } = plan.memory;
  const args = ["--import", "tsx", CHILD, urls.join(","), String(scrapers), String(scrapeWindowMs)];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      const line = output.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as Figures);
      else reject(new Error(`memory-child exited with ${code}: ${output.slice(-500)}`));
    });
  });
}

export async function consoleMemory(
  urls: readonly string[],
  admins: readonly Redis[],
): Promise<Record<string, { ours: Figures }>> {
  const { lockCounts } = plan.memory;
  const { otherKeysPerNode } = plan.snapshot;
  log(`memory: seeding ${otherKeysPerNode} application hashes per node`);
  await seedOtherHashes(admins, "app:", otherKeysPerNode);
  const results: Record<string, { ours: Figures }> = {};
  let seeded = 0;
  for (const lockCount of [0, ...lockCounts]) {
    await seedLocks(admins, LOCK_PREFIX, seeded, lockCount, 3_600_000);
    seeded = lockCount;
    log(`memory: ${lockCount} locks per node, ${plan.memory.scrapers} scrapers`);
    results[`memory ${lockCount / 1000}k locks`] = { ours: await measureConsole(urls) };
  }
  await Promise.all(admins.map((admin) => admin.flushall()));
  return results;
}
