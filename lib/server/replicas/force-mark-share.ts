import "server-only";
/**
 * Force-release marks shared between replicas: a force-release through one replica is attributed
 * ("force-released by …") by whichever replica writes the history, and by every replica's own fold
 * (each keeps pending what it folds, reconcile.ts). Published on the state store before the
 * force-release writes to the lock nodes (the route waits, at most SHARE_DEADLINE_MS), heard by
 * every replica on a subscriber connection. A mark lives 30 s (force-marks.ts), so a replica that
 * starts later needs none of the marks made before it. Messages are checked (zod): anyone who can
 * write to the store can publish, and a mark only words a hold's end, never writes a lock.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { logger } from "../logger";
import type { ForceMarkEvent } from "../timeline/force-marks";

export const FORCE_MARK_CHANNEL = "redlock-console:force-marks";
/** A force-release waits at most this long for its mark to be published. */
const SHARE_DEADLINE_MS = 500;

const messageSchema = z.object({
  from: z.string().max(200),
  event: z.discriminatedUnion("op", [
    z.object({
      op: z.literal("mark"),
      resource: z.string().max(1_048_576),
      by: z.string().max(1_000),
      reason: z.string().max(10_000).nullable(),
      value: z.string().max(1_048_576).nullable(),
      auditId: z.string().max(200).nullable(),
      atMs: z.number().int().nonnegative(),
    }),
    z.object({
      op: z.literal("settle"),
      resource: z.string().max(1_048_576),
      values: z.array(z.string().max(1_048_576)).max(100),
    }),
  ]),
});

export interface ForceMarkShare {
  share(event: ForceMarkEvent): Promise<void>;
  close(): Promise<void>;
}

export function shareForceMarks(
  store: Redis,
  replicaId: string,
  apply: (event: ForceMarkEvent) => void,
): ForceMarkShare {
  const subscriber = store.duplicate({ connectionName: "redlock-console:state-marks" });
  subscriber.on("error", () => {}); // the store's own client logs its errors
  void subscriber.subscribe(FORCE_MARK_CHANNEL).catch(() => {});
  subscriber.on("message", (_channel: string, text: string) => {
    try {
      const parsed = messageSchema.safeParse(JSON.parse(text));
      if (parsed.success && parsed.data.from !== replicaId) apply(parsed.data.event);
    } catch {
      // not JSON: ignored
    }
  });
  return {
    async share(event) {
      const sent = store.publish(FORCE_MARK_CHANNEL, JSON.stringify({ from: replicaId, event }));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHARE_DEADLINE_MS);
      });
      try {
        await Promise.race([sent, deadline]);
      } catch (error) {
        logger.warn({ error: String(error) }, "force-release mark not shared with other replicas");
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
