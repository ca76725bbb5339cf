/** Who is calling, for audit lines and the per-client limiters. */

/**
 * The header carrying the TCP peer address. instrumentation.ts (http-server-hooks.ts) overwrites it on
 * every request the Node.js server receives, so a client cannot choose it; Next.js itself offers
 * route handlers only X-Forwarded-For, which it fills with the peer address only when a client sent none.
 */
export const PEER_ADDRESS_HEADER = "x-redlock-console-peer";

const lastHop = (header: string | null) => header?.split(",").at(-1)?.trim() ?? "";

/**
 * The client address used to key the limiters and shown in audit lines. With CONSOLE_TRUST_PROXY
 * the proxy's word: the last X-Forwarded-For hop (the one your proxy appended; earlier hops are
 * whatever the client claimed). Without it, forwarding headers are ignored: a client could forge
 * them to get fresh limiter buckets, so only the socket's peer address counts.
 */
export function clientIp(request: Request, trustProxy: boolean): string {
  const forwarded = trustProxy ? lastHop(request.headers.get("x-forwarded-for")) : "";
  const peer = request.headers.get(PEER_ADDRESS_HEADER)?.trim();
  return (forwarded || peer || "unknown").slice(0, 64);
}

export function userAgent(request: Request): string {
  return (request.headers.get("user-agent") ?? "").slice(0, 256);
}
