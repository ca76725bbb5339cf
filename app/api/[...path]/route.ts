import { ApiError } from "@/lib/server/errors";
import { route } from "@/app/api/_lib/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Any /api path no route serves: the API's JSON 404 instead of the HTML not-found page. */
const notFound = route(async (request) => {
  throw new ApiError(
    "not_found",
    `No API route at ${new URL(request.url).pathname}; see the README's HTTP API section.`,
  );
});

export {
  notFound as GET,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
};
