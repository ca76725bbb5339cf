/**
 * Next.js calls `register()` once per server process, before it serves a request (see
 * node_modules/next/dist/docs/01-app/02-guides/instrumentation.md). Here the console:
 * - hooks the Node.js HTTP server (peer address for the limiters, JSON for unparsable requests);
 * - checks the configuration and, if it is bad, prints the message and exits, so `next start`
 *   (the Docker image's command) fails at start like `npm start` does, instead of serving 500s;
 * - builds the console, which connects to the nodes and starts the latency probe at boot, so the
 *   charts have history before the first visitor.
 * Next.js skips `register()` during `next build`, and the imports are dynamic, so building never
 * connects to Redis.
 */
export async function register(): Promise<void> {
  // The console needs Node.js sockets (ioredis); an edge runtime has none.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installHttpServerHooks } = await import("@/lib/server/http-server-hooks");
  installHttpServerHooks();
  const { getConsole } = await import("@/lib/server/default-console");
  try {
    // Idempotent: the route handlers get this same instance (kept on globalThis).
    getConsole();
  } catch (error) {
    // By name: this bundle's ConfigError class is not the one default-console's copy throws.
    if (!(error instanceof Error) || error.name !== "ConfigError") throw error;
    console.error(error.message);
    process.exit(1);
  }
}
