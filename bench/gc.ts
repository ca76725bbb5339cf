/** A forced full GC without needing `node --expose-gc`, so heap samples measure live memory, not garbage. */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

/** Live JS heap after a full collection, MB. */
export function liveHeapMb(): number {
  collect();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}
