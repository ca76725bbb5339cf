import "server-only";
/**
 * One result per route, key and max age (CONSOLE_SNAPSHOT_MAX_AGE_MS), shared by every reader of
 * one console: concurrent requests for the same page share one computation, and it answers the
 * same request again until it is that old. The key says what the body depends on: the validated
 * query, and whether the reader gets digests or values (redact.ts, seesValues), so a reader
 * without values is never handed a body with them.
 */
import type { Principal } from "@/lib/server/auth/credentials";
import { keyedSingleFlight } from "@/lib/server/single-flight";
import { seesValues } from "./redact";

type Flight = (key: string, load: () => Promise<unknown>) => Promise<unknown>;
const flightsByConsole = new WeakMap<object, Map<string, Flight>>();

export function sharedRead<Body>(
  console: {
    readonly config: { readonly snapshotMaxAgeMs: number; readonly viewerValues: boolean };
  },
  routeName: string,
  principal: Principal | null,
  query: unknown,
  load: () => Promise<Body>,
): Promise<Body> {
  let flights = flightsByConsole.get(console);
  if (!flights) flightsByConsole.set(console, (flights = new Map()));
  let flight = flights.get(routeName);
  if (!flight)
    flights.set(routeName, (flight = keyedSingleFlight(console.config.snapshotMaxAgeMs)));
  const reader = seesValues(console, principal) ? "values" : "digests";
  return flight(JSON.stringify([reader, query]), load) as Promise<Body>;
}
