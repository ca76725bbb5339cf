/**
 * Runs one scenario for one library, alone, for profiling (or a quick look):
 *   node --cpu-prof --cpu-prof-dir=bench/results --import tsx bench/profile.ts [sequential|c16|c64|c64-autopipe|contended|handoff|hung-release] [library]
 * Open the .cpuprofile in Chrome DevTools (Performance tab) or read it with `tsx bench/profile-top.ts <file>`.
 */
import { startMasters } from "@/scripts/redis-masters";
import { LIBRARIES, loadOurs, type LibraryName } from "./peers";
import { openClients, closeClients } from "./clients";
import { plan } from "./config";
import { contended } from "./scenarios/contended";
import { hungRelease } from "./scenarios/hung-release";
import { sequential } from "./scenarios/sequential";
import { throughput } from "./scenarios/throughput";

const [scenario = "c64", library = "ours"] = process.argv.slice(2);
if (!LIBRARIES.includes(library as LibraryName))
  throw new Error(`library must be one of ${LIBRARIES.join(", ")}`);

await loadOurs();
const masters = await startMasters({ count: 5, dataDir: `.data/bench-profile/${process.pid}` });
try {
  const admins = await openClients(masters.urls);
  const run = () => {
    const name = library as LibraryName;
    if (scenario === "hung-release") return hungRelease(masters, name);
    if (scenario === "contended" || scenario === "handoff")
      return contended(masters.urls, admins, name, 0, plan[scenario], scenario);
    const match = /^c(\d+)(-autopipe)?$/.exec(scenario);
    if (match)
      return throughput(masters.urls, name, 0, {
        concurrency: Number(match[1]),
        autoPipelining: Boolean(match[2]),
      });
    return sequential(masters.urls, name, 0);
  };
  console.log(scenario, library, await run());
  closeClients(admins);
} finally {
  await masters.stop();
}
