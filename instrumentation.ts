/**
 * Next.js calls `register()` once per server process, before it serves a request (see
 * node_modules/next/dist/docs/01-app/02-guides/instrumentation.md). Building the console here
 * connects to the nodes and starts the latency probe at boot, so the charts have history before
 * the first visitor rather than from the first request on. Next.js skips `register()` during
 * `next build`, and the import below is dynamic, so building never connects to Redis.
 */
export async function register(): Promise<void> {
  // The console needs Node.js sockets (ioredis); an edge runtime has none.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getConsole } = await import("@/lib/server/default-console");
  // Idempotent: the route handlers get this same instance (kept on globalThis).
  getConsole();
}
