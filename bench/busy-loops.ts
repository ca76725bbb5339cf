import { spawn, type ChildProcess } from "node:child_process";

/** Each busy loop spins this long, then sleeps as long. */
const BUSY_HALF_PERIOD_MS = 50;

/**
 * Two processes spinning half the time each (`for(;;){}` duty-cycled): CPU taken from the cores
 * the way a busy host takes it. Kill them with SIGKILL when done.
 */
export function startBusyLoops(): ChildProcess[] {
  const loop = `const s=new Int32Array(new SharedArrayBuffer(4));const p=process.ppid;for(;;){if(process.ppid!==p)process.exit();const t=Date.now();while(Date.now()-t<${BUSY_HALF_PERIOD_MS});Atomics.wait(s,0,0,${BUSY_HALF_PERIOD_MS})}`;
  return [0, 1].map(() => spawn(process.execPath, ["-e", loop], { stdio: "ignore" }));
}
