import "server-only";
import { getConsole } from "./default-console";
import { applyHeapMode } from "./heap-mode";
import { installHttpServerHooks } from "./http-server-hooks";

/**
 * What `instrumentation.ts` runs once per Node.js server process: hooks the HTTP server, then builds
 * the console (nodes connected, latency probe started) and sizes the heap (heap-mode.ts) before its
 * first listing. A bad configuration prints its message and exits, so `next start` fails at start
 * like `npm start` does, instead of serving 500s. Kept out of instrumentation.ts so that file uses no
 * Node.js API an edge bundle would warn about.
 */
export function bootConsole(): void {
  installHttpServerHooks();
  try {
    // Idempotent: the route handlers get this same instance (kept on globalThis).
    applyHeapMode(getConsole().config.heapMode);
  } catch (error) {
    // By name: a ConfigError from another bundle's copy of config.ts is another class.
    if (!(error instanceof Error) || error.name !== "ConfigError") throw error;
    console.error(error.message);
    process.exit(1);
  }
}
