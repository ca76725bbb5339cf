/** `POST /api/nodes/{id}/keyspace-events`: turn on the keyspace events a polled node lacks. */
import { z } from "zod";
import { nodeIdSchema } from "./common";

/**
 * `POST /api/nodes/{id}/keyspace-events` (the node is in the path): `{}` turns the events on;
 * `{ "preview": true }` only reads the node's flags and answers the command it would run.
 */
export const keyspaceEventsRequestSchema = z.object({ preview: z.boolean().optional() }).strict();
export type KeyspaceEventsRequest = z.infer<typeof keyspaceEventsRequestSchema>;

/** A node id as it appears in a path: what REDLOCK_NODES entries are named (`node-3`). */
export const nodePathIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "a node id is 1-64 letters, digits, '.', '_' or '-'");

/**
 * What turning on a node's keyspace events did: `enabled` (only the flags it lacked were added:
 * `from` → `to`), `already` (it had them all), or `refused` (CONFIG SET was not allowed: `command`
 * is what to run on the node instead, `error` what the node said). A preview answers `preview`:
 * `from` (the flags now), `to` and `command` (the CONFIG SET it would run), changing nothing.
 */
export const keyspaceEventsResponseSchema = z.object({
  nodeId: nodeIdSchema,
  outcome: z.enum(["preview", "enabled", "already", "refused"]),
  from: z.string().nullable(),
  to: z.string().nullable(),
  command: z.string().nullable(),
  error: z.string().nullable(),
});
export type KeyspaceEventsResponse = z.infer<typeof keyspaceEventsResponseSchema>;
