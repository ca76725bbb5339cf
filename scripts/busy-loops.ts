/**
 * The suite's stress check (issue 40): bench/busy-loops.ts's two loops, each taking a core half
 * the time, until Ctrl-C or SIGTERM (they also stop when this process dies). Beside a run:
 * `npx tsx scripts/busy-loops.ts & bash .ci/run; kill %1`.
 */
import { startBusyLoops } from "@/bench/busy-loops";

const loops = startBusyLoops();
console.log(`${loops.length} busy loops, pids ${loops.map((loop) => loop.pid).join(", ")}`);
const stop = () => {
  for (const loop of loops) loop.kill("SIGKILL");
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
// Nothing else keeps this process alive: the loops' handles are theirs.
setInterval(() => undefined, 60_000);
