import "server-only";
/**
 * The wrapper every route handler uses: resolves the console, runs the handler, and turns any thrown
 * error into the API's error body. Keeps app/api/** down to parse, call, respond.
 */
import type { ConsoleContext } from "@/lib/server/console";
import { getConsole } from "@/lib/server/default-console";
import { ApiError, toResponse } from "@/lib/server/errors";

export type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

export function route(handler: (request: Request, ctx: ConsoleContext) => Promise<Response>) {
  return async (request: Request, _context?: RouteContext): Promise<Response> => {
    try {
      return await handler(request, getConsole());
    } catch (error) {
      return toResponse(error);
    }
  };
}

/**
 * For the methods a route does not serve: Next.js would answer 405 with an empty body; this keeps
 * the API's error shape. Re-exported by each route file under the method names it lacks.
 */
export const methodNotAllowed = route(async (request) => {
  throw new ApiError(
    "method_not_allowed",
    `${request.method} is not supported here; see the README's HTTP API section.`,
  );
});
