import { eventsQuerySchema, parseEventId, type Transition } from "@/lib/api";
import { clientIp } from "@/lib/server/auth/client-info";
import { forReader, redactTransition } from "@/app/api/_lib/redact";
import { readQuery } from "@/app/api/_lib/http";
import { route } from "@/app/api/_lib/route";
import {
  eventStreamsOf,
  type StreamEnd,
  type StreamSlot,
} from "@/lib/server/timeline/event-streams";
import { filterOf } from "@/lib/server/timeline/events-query";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** Transitions replayed to a client that resumes (Last-Event-ID) at most. */
const REPLAY_MAX = 1_000;

/**
 * Lock transitions as server-sent events (`event: transition`, `id:` its id), filtered like
 * GET /api/events. Pushed from the timeline in memory as they happen: any number of viewers cost
 * the nodes nothing. A reconnecting EventSource resumes after its Last-Event-ID. Slots, per-client
 * caps, the per-stream buffer bound and the end at logout or expiry: lib/server/timeline/event-streams.ts.
 */
export const GET = route(async (request, ctx) => {
  const principal = await ctx.guard.requireRead(request);
  const query = readQuery(request, eventsQuerySchema);
  const streams = eventStreamsOf(ctx);
  const { limits } = streams;
  let end: (why: StreamEnd) => void = () => {};
  const slot: StreamSlot = {
    client: clientIp(request, ctx.config.trustProxy),
    signedIn: principal !== null,
    label: principal?.carrier === "cookie" ? principal.label : null,
    end: (why) => end(why),
  };
  streams.admit(slot);
  const keep = filterOf(query);
  // A reconnecting EventSource sends Last-Event-ID; a header that is not an id is no id (nothing
  // replayed), never a number.
  const header = request.headers.get("last-event-id");
  const lastId = header !== null ? parseEventId(header) : (query.after ?? null);
  const encoder = new TextEncoder();
  const format = (transition: Transition) =>
    encoder.encode(
      `id: ${transition.id}\nevent: transition\ndata: ${JSON.stringify(forReader(ctx, principal, transition, redactTransition))}\n\n`,
    );
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        ctx.metrics.setEventStreamClients(streams.stats().open);
        let closed = false;
        const timers: Array<ReturnType<typeof setTimeout>> = [];
        let unsubscribe = () => {};
        end = (why) => {
          if (closed) return;
          closed = true;
          unsubscribe();
          for (const timer of timers) clearTimeout(timer);
          streams.release(slot, why);
          ctx.metrics.setEventStreamClients(streams.stats().open);
          try {
            // A slow reader keeps what is queued (at most the buffer bound), then the end: its
            // EventSource reconnects with Last-Event-ID and is replayed the rest.
            controller.close();
          } catch {
            // already closed by the client going away
          }
        };
        const send = (chunk: Uint8Array) => {
          if (closed) return;
          try {
            controller.enqueue(chunk);
          } catch {
            end("client");
            return;
          }
          // Queued bytes the reader has not taken past the bound: a slow reader, dropped.
          if ((controller.desiredSize ?? 0) < 0) end("slow-reader");
        };
        send(
          encoder.encode(
            `retry: 2000\nevent: horizon\ndata: ${JSON.stringify(ctx.timeline.horizon())}\n\n`,
          ),
        );
        if (lastId !== null)
          for (const transition of ctx.timeline.transitions(REPLAY_MAX, keep, lastId).reverse())
            send(format(transition));
        if (closed) return;
        // A replica that has not read the resumed-from id from the state store yet serves it (and
        // what came before it) later, live: never twice to a client that already has it.
        unsubscribe = ctx.timeline.subscribe((transition) => {
          if (lastId !== null && transition.id <= lastId) return;
          if (keep(transition)) send(format(transition));
        });
        timers.push(setInterval(() => send(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS));
        if (principal) {
          // The credential is read again now and then (a logout on another replica) and the
          // stream ends with the session's expiry.
          timers.push(
            setInterval(() => {
              ctx.guard.principalOf(request).then(
                (now) => {
                  if (now === null) end("logout");
                },
                () => end("logout"),
              );
            }, limits.recheckMs),
          );
          if (principal.expiresAt !== null)
            timers.push(
              setTimeout(
                () => end("expired"),
                Math.min(Math.max(0, principal.expiresAt - Date.now()), 2 ** 31 - 1),
              ),
            );
        }
        request.signal.addEventListener("abort", () => end("client"), { once: true });
      },
      cancel() {
        end("client");
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: limits.bufferBytes }),
  );
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
