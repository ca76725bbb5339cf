/**
 * A quick side-by-side of a few scenarios (default: sequential and c64), interleaved over rounds:
 *   npx tsx bench/compare.ts [rounds] [scenario,...]
 * For iterating on the hot path; `npm run bench` is the full, reported run.
 */
import { startMasters } from "@/scripts/redis-masters";
import { interleaved, loadOurs } from "./peers";
import { sequential } from "./scenarios/sequential";
import { throughput } from "./scenarios/throughput";

const rounds = Number(process.argv[2] ?? 3);
const scenarios = (process.argv[3] ?? "sequential,c64").split(",");
await loadOurs();
const masters = await startMasters({ count: 5, dataDir: `.data/bench-compare/${process.pid}` });
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of scenarios) {
      const row: string[] = [];
      for (const library of interleaved(round)) {
        const concurrency = /^c(\d+)$/.exec(scenario)?.[1];
        const result = concurrency
          ? await throughput(masters.urls, library, round, {
              concurrency: Number(concurrency),
              autoPipelining: false,
            })
          : await sequential(masters.urls, library, round);
        const figures = Object.entries(result)
          .filter(([name]) => /P50|P99|opsPerS|pairsPerS|cpuUs/.test(name))
          .map(([name, value]) => `${name}=${Number(value).toFixed(name.includes("Ms") ? 3 : 0)}`);
        row.push(`${library}: ${figures.join(" ")}`);
      }
      console.log(`round ${round + 1} ${scenario}\n  ${row.join("\n  ")}`);
    }
  }
} finally {
  await masters.stop();
}
