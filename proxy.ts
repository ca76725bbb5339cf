import { NextResponse, type NextRequest } from "next/server";

/**
 * Answers 400 to a path Next.js cannot percent-decode (e.g. `/api/locks/%zz` or `%FF`). Without
 * this, Next's router fails on such paths with a plain 500 before any route handler runs; the
 * API promises a 4xx `{error:{code,message}}` for every bad input. Keys that are not UTF-8 are read
 * with `GET /api/locks/{base64}?encoding=base64` instead (see the README's HTTP API section).
 */
export function proxy(request: NextRequest): NextResponse {
  try {
    decodeURIComponent(request.nextUrl.pathname);
  } catch {
    return NextResponse.json(
      {
        error: {
          code: "invalid_request",
          message:
            "The path is not valid percent-encoded UTF-8; for a key that is not UTF-8 use /api/locks/{base64}?encoding=base64.",
        },
      },
      { status: 400 },
    );
  }
  return NextResponse.next();
}

export const config = {
  matcher: ["/((?!_next/static|_next/image).*)"],
};
