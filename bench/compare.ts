/**
 * A quick side-by-side of a few scenarios (default: sequential and c64), interleaved over rounds:
 *   npx tsx bench/compare.ts [rounds] [scenario,...]
 * For iterating on the hot path; `npm run bench` is the full, reported run. Ends with ours/peer
 * pairs/s ratios taken within each round (paired), whose median moves far less from run to run on
 * a shared 2-core machine than the ratio of medians.
 */
import { startMasters } from "@/scripts/redis-masters";
import { interleaved, loadOurs } from "./peers";
import { sequential } from "./scenarios/sequential";
import { throughput } from "./scenarios/throughput";
import { median } from "./stats";

const rounds = Number(process.argv[2] ?? 3);
const scenarios = (process.argv[3] ?? "sequential,c64").split(",");
await loadOurs();
const masters = await startMasters({ count: 5, dataDir: `.data/bench-compare/${process.pid}` });
/** scenario -> peer -> ours/peer pairs/s of each round. */
const paired = new Map<string, Map<string, number[]>>();
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of scenarios) {
      const row: string[] = [];
      const opsPerS = new Map<string, number>();
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
        opsPerS.set(library, Number(result.opsPerS));
      }
      const ratios = paired.get(scenario) ?? new Map<string, number[]>();
      paired.set(scenario, ratios);
      for (const [library, value] of opsPerS)
        if (library !== "ours")
          ratios.set(library, [...(ratios.get(library) ?? []), opsPerS.get("ours")! / value]);
      console.log(`round ${round + 1} ${scenario}\n  ${row.join("\n  ")}`);
    }
  }
  for (const [scenario, ratios] of paired)
    for (const [peer, values] of ratios) {
      const sorted = [...values].sort((a, b) => a - b);
      console.log(
        `${scenario}: ours/${peer} pairs/s, median of ${values.length} paired rounds ${median(values).toFixed(2)}x (range ${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)})`,
      );
    }
} finally {
  await masters.stop();
}
