import "server-only";
/**
 * The wrapper every route handler uses: resolves the console, runs the handler, and turns any thrown
 * error into the API's error body. Keeps app/api/** down to parse, call, respond. A state-changing
 * request refused (400, 401, 403, 404, 409, 429) is counted in the refusal log here, once for every
 * route.
 */
import { refusalOf } from "@/lib/server/auth/request-refusals";
import type { ConsoleContext } from "@/lib/server/console";
import { getConsole } from "@/lib/server/default-console";
import { ApiError, toResponse } from "@/lib/server/errors";

export type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

export function route(handler: (request: Request, ctx: ConsoleContext) => Promise<Response>) {
  return async (request: Request, _context?: RouteContext): Promise<Response> => {
    let ctx: ConsoleContext | undefined;
    try {
      ctx = getConsole();
      return await handler(request, ctx);
    } catch (error) {
      const refusal = ctx ? refusalOf(request, error, ctx.config.trustProxy) : null;
      if (ctx && refusal) ctx.refusals.record(refusal);
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
