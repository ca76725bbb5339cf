/**
 * A lock holder's session (docs/holder-sessions.md), as the lock read, force-release and the
 * sessions API report it. "Holder session": the session of the process holding a lock, not the
 * console's login session (session.ts).
 */
import { SESSION_ID_PATTERN } from "@redlock-console/redlock/protocol";
import { z } from "zod";
import { epochMsSchema } from "./common";

/** A holder session id: 16 random bytes as 32 lowercase hex characters. */
export const holderSessionIdSchema = z
  .string()
  .regex(SESSION_ID_PATTERN, "must be 32 lowercase hex characters");

export const holderSessionStateSchema = z.enum([
  /** A majority of the nodes hold a heartbeat that is not late. */
  "alive",
  /** Late somewhere without proof of a closed connection: paused, in a long GC, busy, or partitioned. */
  "unresponsive",
  /**
   * On a majority of the nodes (each up longer than the session window, and never closing idle
   * clients by itself: `timeout 0`) the heartbeat is late and the connection that sent it is
   * closed: the process is gone.
   */
  "gone",
  /** The holder's value carries no session id (another library, or `session: false`). */
  "unknown",
]);
export type HolderSessionState = z.infer<typeof holderSessionStateSchema>;

/**
 * The session of a lock's holder. A holder whose value carries no session id is
 * `{ id: null, state: "unknown", lastSeenAt: null, labels: {} }`: state "unknown" is always explicit.
 */
export const holderSessionSchema = z.object({
  /** null exactly when state is "unknown". */
  id: holderSessionIdSchema.nullable(),
  state: holderSessionStateSchema,
  /** Console clock (epoch ms) of the freshest heartbeat on the nodes; null when none was found. */
  lastSeenAt: epochMsSchema.nullable(),
  /** The session's owner labels (service, host, pid…), from its heartbeat. */
  labels: z.record(z.string(), z.string()),
});
export type HolderSession = z.infer<typeof holderSessionSchema>;
