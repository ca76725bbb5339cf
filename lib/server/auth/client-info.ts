/** Who is calling, for audit lines and the login limiter. */
/**
 * The client address: X-Forwarded-For's first hop (Next.js fills it with the socket address when
 * absent). A client can forge it unless a proxy in front overwrites it, so it is recorded
 * and used to spread the login limiter, never trusted for an access decision.
 */
export function clientIp(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return (forwarded || request.headers.get("x-real-ip") || "unknown").slice(0, 64);
}

export function userAgent(request: Request): string {
  return (request.headers.get("user-agent") ?? "").slice(0, 256);
}
