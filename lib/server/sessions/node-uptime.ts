import "server-only";
/**
 * What a server must say before it may prove a holder session gone (liveness.ts): its uptime, and
 * that it never closes idle clients by itself.
 *
 * The uptime is asked fresh each time: a node counts toward "gone" only once up longer than the
 * session window, and a cached uptime would hide the restart it guards against.
 *
 * The idle-client `timeout` (CONFIG GET timeout) is read once per server and kept with it: with
 * `timeout N`, the server closes a SIGSTOPped holder's connection after N s, and a closed
 * connection would prove a crash that never happened. It is asked again when the console's
 * connection to the server comes back (a restart may load another config) and at least every
 * TIMEOUT_FRESH_MS (a `CONFIG SET timeout` at run time). A server that refuses CONFIG (renamed,
 * an ACL) reads null: it never counts toward "gone".
 */
import type { Redis } from "ioredis";

export async function readUptimeS(server: Redis): Promise<number | null> {
  const info = await server.info("server");
  const match = /^uptime_in_seconds:(\d+)/m.exec(info);
  return match ? Number(match[1]) : null;
}

/** How long a server's `timeout` is trusted before it is asked again. */
export const TIMEOUT_FRESH_MS = 10_000;

interface KnownTimeout {
  readonly timeoutS: Promise<number | null>;
  readonly readAtMs: number;
}

const timeouts = new WeakMap<Redis, KnownTimeout>();
/** Servers whose reconnections already drop their known timeout. */
const watched = new WeakSet<Redis>();

async function askTimeoutS(server: Redis): Promise<number | null> {
  try {
    const reply = (await server.config("GET", "timeout")) as unknown;
    // ["timeout", "<s>"]; an empty list when the parameter is unknown.
    const value = Array.isArray(reply) && reply[0] === "timeout" ? Number(reply[1]) : NaN;
    return Number.isInteger(value) && value >= 0 ? value : null;
  } catch {
    return null;
  }
}

/** The server's idle-client timeout in s (0: never), or null when it cannot be read. */
export function readIdleTimeoutS(server: Redis, nowMs = Date.now()): Promise<number | null> {
  if (!watched.has(server)) {
    watched.add(server);
    server.on("ready", () => timeouts.delete(server));
  }
  const known = timeouts.get(server);
  if (known && nowMs - known.readAtMs < TIMEOUT_FRESH_MS) return known.timeoutS;
  const timeoutS = askTimeoutS(server);
  timeouts.set(server, { timeoutS, readAtMs: nowMs });
  return timeoutS;
}
