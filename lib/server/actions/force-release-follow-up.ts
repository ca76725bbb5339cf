import "server-only";
/**
 * What a force-release finally did on nodes that did not answer in time. A paused node keeps the
 * write queued and may run it when it resumes, after the operator was told "tombstoned on 4 nodes".
 * Each such node is asked for the call's outcome marker until it answers: Redis runs one
 * connection's commands in order, so once this GET is answered the queued script has run (marker
 * set to its outcome), or never will (no marker: the connection dropped with it). The answer lands
 * in the audit trail as a follow-up entry naming the first one.
 */
import type { AuditRecord } from "../audit/audit-trail";
import type { FollowUpDeps } from "./deps";
import { logger } from "../logger";
import { withDeadline, type ConsoleNode } from "../node-registry";
import type { ForceReleaseOutcome } from "./force-release";

/** How long a silent node is asked again; outcome markers live longer (OUTCOME_MARKER_TTL_MS). */
const FOLLOW_UP_WINDOW_MS = 10 * 60_000;
const RETRY_EVERY_MS = 1_000;

const OUTCOME_TEXT: Record<string, string> = {
  deleted: "the queued delete ran late and deleted the lock",
  replaced: "the queued write ran late and replaced the lock by its tombstone",
  reserved: "the queued write ran late and found a tombstone already there: left as it was",
  hash: "the queued write ran late and left a Redisson hash alone",
  absent: "the queued delete ran late and found no lock",
  mismatch: "the queued delete ran late and kept another holder's lock",
  not_a_lock: "the queued delete ran late and found a key that is not a lock",
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** The marker once the node answers; undefined if it stays silent for the whole window. */
async function awaitMarker(
  node: ConsoleNode,
  markerKey: string,
  deadlineMs: number,
): Promise<string | null | undefined> {
  const giveUpAt = Date.now() + FOLLOW_UP_WINDOW_MS;
  while (Date.now() < giveUpAt && node.client.status !== "end") {
    try {
      return await withDeadline(node.client.get(markerKey), deadlineMs);
    } catch {
      await sleep(RETRY_EVERY_MS);
    }
  }
  return undefined;
}

/** Starts the follow-up of each pending node; resolves when all are audited (tests wait on it). */
export async function followUpPendingNodes(
  ctx: FollowUpDeps,
  firstEntryId: string,
  outcome: ForceReleaseOutcome,
  record: Omit<AuditRecord, "outcome" | "detail">,
): Promise<void> {
  const pending = ctx.registry.nodes.filter((node) => outcome.pendingNodeIds.includes(node.id));
  await Promise.all(
    pending.map(async (node) => {
      const marker = await awaitMarker(node, outcome.markerKey, ctx.nodeDeadlineMs);
      const what =
        marker === undefined
          ? `no answer within ${FOLLOW_UP_WINDOW_MS / 60_000} min: outcome unknown`
          : marker === null
            ? "the queued delete never ran (the connection dropped): nothing deleted there"
            : (OUTCOME_TEXT[marker] ?? `the queued delete ran late: ${marker}`);
      await ctx.audit.append({
        ...record,
        outcome:
          marker === "deleted" || marker === "replaced" || marker === "reserved" || marker === null
            ? "success"
            : "failure",
        followUpOf: firstEntryId,
        detail: `follow-up of ${firstEntryId}: ${node.id}: ${what}`,
      });
      if (marker) void node.client.del(outcome.markerKey).catch(() => undefined);
    }),
  ).catch((error: unknown) => logger.error({ err: error }, "force-release follow-up failed"));
}
