import { eventsQuerySchema, parseEventId, type Transition } from "@/lib/api/timeline";
import { ApiError } from "@/lib/server/errors";
import { readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";
import { filterOf } from "@/lib/server/timeline/events-query";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Streams open at once at most: each costs a listener and a socket, never a read of a node. */
const MAX_STREAMS = 200;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** Transitions replayed to a client that resumes (Last-Event-ID) at most. */
const REPLAY_MAX = 1_000;

let openStreams = 0;

/**
 * Lock transitions as server-sent events (`event: transition`, `id:` its id), filtered like
 * GET /api/events. Pushed from the timeline in memory as they happen: any number of viewers cost
 * the nodes nothing. A reconnecting EventSource resumes after its Last-Event-ID.
 */
export const GET = route(async (request, ctx) => {
  await ctx.guard.requireRead(request);
  const query = readQuery(request, eventsQuerySchema);
  if (openStreams >= MAX_STREAMS)
    throw new ApiError("rate_limited", `At most ${MAX_STREAMS} event streams may be open at once.`);
  const keep = filterOf(query);
  // A reconnecting EventSource sends Last-Event-ID; a header that is not an id is no id (nothing
  // replayed), never a number.
  const header = request.headers.get("last-event-id");
  const lastId = header !== null ? parseEventId(header) : (query.after ?? null);
  const encoder = new TextEncoder();
  const format = (transition: Transition) =>
    encoder.encode(
      `id: ${transition.id}\nevent: transition\ndata: ${JSON.stringify(transition)}\n\n`,
    );
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      openStreams += 1;
      ctx.metrics.setEventStreamClients(openStreams);
      const send = (chunk: Uint8Array) => {
        try {
          controller.enqueue(chunk);
        } catch {
          cleanup();
        }
      };
      send(
        encoder.encode(
          `retry: 2000\nevent: horizon\ndata: ${JSON.stringify(ctx.timeline.horizon())}\n\n`,
        ),
      );
      if (lastId !== null)
        for (const transition of ctx.timeline.transitions(REPLAY_MAX, keep, lastId).reverse())
          send(format(transition));
      const unsubscribe = ctx.timeline.subscribe((transition) => {
        if (keep(transition)) send(format(transition));
      });
      const keepalive = setInterval(() => send(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS);
      let closed = false;
      cleanup = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(keepalive);
        openStreams -= 1;
        ctx.metrics.setEventStreamClients(openStreams);
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      };
      request.signal.addEventListener("abort", () => cleanup(), { once: true });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
});

export {
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
} from "@/app/api/_lib/route";
