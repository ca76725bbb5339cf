/**
 * Next.js calls `register()` once per server process, before it serves a request (see
 * node_modules/next/dist/docs/01-app/02-guides/instrumentation.md). In the Node.js runtime it boots
 * the console (lib/server/boot.ts): HTTP server hooks, the configuration check (a bad one exits,
 * so `next start` fails at start), and the nodes and latency probe, so the charts have history
 * before the first visitor. Next.js skips `register()` during `next build`, and the import is
 * dynamic, so building never connects to Redis.
 */
export async function register(): Promise<void> {
  // The console needs Node.js sockets (ioredis); an edge runtime has none.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { bootConsole } = await import("@/lib/server/boot");
  bootConsole();
}
