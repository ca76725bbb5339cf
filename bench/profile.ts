/**
 * Runs one scenario for one library, alone, for profiling:
 *   node --cpu-prof --cpu-prof-dir=bench/results --import tsx bench/profile.ts [sequential|c16|c64|c64-autopipe] [library]
 * Open the .cpuprofile in Chrome DevTools (Performance tab) or read it with `tsx bench/profile-top.ts <file>`.
 */
import { startMasters } from "../scripts/redis-masters";
import { LIBRARIES, loadOurs, type LibraryName } from "./peers";
import { sequential } from "./scenarios/sequential";
import { throughput } from "./scenarios/throughput";

const [scenario = "c64", library = "ours"] = process.argv.slice(2);
if (!LIBRARIES.includes(library as LibraryName))
  throw new Error(`library must be one of ${LIBRARIES.join(", ")}`);

await loadOurs();
const masters = await startMasters({ count: 5, dataDir: `.data/bench-profile/${process.pid}` });
try {
  const match = /^c(\d+)(-autopipe)?$/.exec(scenario);
  const result = match
    ? await throughput(masters.urls, library as LibraryName, 0, {
        concurrency: Number(match[1]),
        autoPipelining: Boolean(match[2]),
      })
    : await sequential(masters.urls, library as LibraryName, 0);
  console.log(scenario, library, result);
} finally {
  await masters.stop();
}
