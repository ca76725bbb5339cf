/**
 * Runs one scenario for one library, alone, for profiling (or a quick look):
 *   node --cpu-prof --cpu-prof-dir=bench/results --import tsx bench/profile.ts [sequential|c16|c64|c64-autopipe|contended|handoff] [library]
 * Open the .cpuprofile in Chrome DevTools (Performance tab) or read it with `tsx bench/profile-top.ts <file>`.
 */
import { startMasters } from "@/scripts/redis-masters";
import { LIBRARIES, loadOurs, type LibraryName } from "./peers";
import { openClients, closeClients } from "./clients";
import { plan } from "./config";
import { contended } from "./scenarios/contended";
import { sequential } from "./scenarios/sequential";
import { throughput } from "./scenarios/throughput";

const [scenario = "c64", library = "ours"] = process.argv.slice(2);
if (!LIBRARIES.includes(library as LibraryName))
  throw new Error(`library must be one of ${LIBRARIES.join(", ")}`);

await loadOurs();
const masters = await startMasters({ count: 5, dataDir: `.data/bench-profile/${process.pid}` });
try {
  const match = /^c(\d+)(-autopipe)?$/.exec(scenario);
  const admins = await openClients(masters.urls);
  const result = /^(contended|handoff)$/.test(scenario)
    ? await contended(
        masters.urls,
        admins,
        library as LibraryName,
        0,
        scenario === "handoff" ? plan.handoff : plan.contended,
        scenario,
      )
    : match
      ? await throughput(masters.urls, library as LibraryName, 0, {
          concurrency: Number(match[1]),
          autoPipelining: Boolean(match[2]),
        })
      : await sequential(masters.urls, library as LibraryName, 0);
  console.log(scenario, library, result);
  closeClients(admins);
} finally {
  await masters.stop();
}
