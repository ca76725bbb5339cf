/**
 * Loads the machine as issue 40's stress check asks: `count` busy loops (threads), each spinning
 * for `duty` of every 100 ms and sleeping the rest, until Ctrl-C or SIGTERM. Run beside the suite:
 * `npx tsx scripts/busy-loops.ts 2 0.5 & bash .ci/run; kill %1`.
 */
import { Worker } from "node:worker_threads";

const PERIOD_MS = 100;

/** The loop, as plain JavaScript: a worker thread does not get tsx's loader. */
const LOOP = `
const { busyMs, periodMs } = require("node:worker_threads").workerData;
const spin = () => {
  const untilMs = performance.now() + busyMs;
  while (performance.now() < untilMs);
  setTimeout(spin, periodMs - busyMs);
};
spin();
`;

const count = Number(process.argv[2] ?? 2);
const duty = Number(process.argv[3] ?? 0.5);
if (!Number.isInteger(count) || count < 1 || !(duty > 0 && duty <= 1)) {
  console.error("usage: busy-loops.ts [count ≥ 1] [duty in (0, 1]]");
  process.exit(2);
}
const workers = Array.from(
  { length: count },
  () =>
    new Worker(LOOP, { eval: true, workerData: { busyMs: duty * PERIOD_MS, periodMs: PERIOD_MS } }),
);
console.log(`${count} busy loops, each busy ${duty * PERIOD_MS} ms of every ${PERIOD_MS} ms`);
const stop = () =>
  void Promise.all(workers.map((worker) => worker.terminate())).then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
