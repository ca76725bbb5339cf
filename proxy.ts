import { NextResponse, type NextRequest } from "next/server";

/** Methods any route serves; Next.js answers others (TRACE, CONNECT, made-up ones) with a bare 500. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function errorJson(status: number, code: string, message: string, headers: HeadersInit = {}) {
  return NextResponse.json({ error: { code, message } }, { status, headers });
}

/**
 * Answers, before Next.js's router sees them:
 * - 405 to methods no route serves (TRACE and the like), in the API's JSON error shape;
 * - 400 to a path Next.js cannot percent-decode (e.g. `/api/locks/%zz` or `%FF`), which its router
 *   would fail on with a plain 500. Keys that are not UTF-8 are read with
 *   `GET /api/locks/{base64}?encoding=base64` instead (see the README's HTTP API section).
 * Security headers (CSP, X-Frame-Options…) come from next.config.js, on these answers too.
 */
export function proxy(request: NextRequest): NextResponse {
  if (!KNOWN_METHODS.has(request.method)) {
    return errorJson(
      405,
      "method_not_allowed",
      `${request.method.slice(0, 32)} is not supported; see the README's HTTP API section.`,
      { allow: [...KNOWN_METHODS].join(", ") },
    );
  }
  try {
    decodeURIComponent(request.nextUrl.pathname);
  } catch {
    return errorJson(
      400,
      "invalid_request",
      "The path is not valid percent-encoded UTF-8; for a key that is not UTF-8 use /api/locks/{base64}?encoding=base64.",
    );
  }
  return NextResponse.next();
}

export const config = {
  matcher: ["/((?!_next/static|_next/image).*)"],
};
