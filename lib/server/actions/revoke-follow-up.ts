import "server-only";
/**
 * What a revoked holder did by its deadline, on evidence: its library records its release by
 * setting `releasedAt` in the revoke marker (docs/holder-sessions.md). The markers are read on every
 * node until one shows it, or until the deadline plus a grace period; either way one audit entry
 * follows the revoke's: "released by the holder after N ms", or "holder did not release before the
 * deadline" (with whether the lock is still held). The entry carries the same as fields
 * (`followUpOf`, `holderDid`, `releasedAfterMs`) for the browser, which never parses `detail`.
 */
import { decodeRevokeMarker, revokeKey, type RevokeMarker } from "@redlock-console/redlock";
import type { AuditRecord } from "../audit/audit-trail";
import type { FollowUpDeps } from "./deps";
import { logger } from "../logger";
import { withDeadline, type ConsoleNode } from "../node-registry";

/** How long past the deadline a release is still looked for (the holder's last extend and release). */
export const REVOKE_GRACE_MS = 2_000;
const POLL_EVERY_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** `releasedAt` of a marker this revoke wrote (the same lock value) on `node`; null if none. */
async function releasedAtOn(
  node: ConsoleNode,
  key: Buffer,
  marker: RevokeMarker,
  deadlineMs: number,
): Promise<number | null> {
  try {
    const text = await withDeadline(node.client.get(revokeKey(key)), deadlineMs);
    if (text === null) return null;
    const found = decodeRevokeMarker(text);
    return found?.value === marker.value ? (found.releasedAt ?? null) : null;
  } catch {
    return null;
  }
}

async function stillHeldOn(ctx: FollowUpDeps, key: Buffer, value: string): Promise<number> {
  const holds = await Promise.all(
    ctx.registry.nodes.map((node) =>
      withDeadline(node.client.get(key), ctx.nodeDeadlineMs).then(
        (held) => held === value,
        () => false,
      ),
    ),
  );
  return holds.filter(Boolean).length;
}

const closed = (ctx: FollowUpDeps) =>
  ctx.registry.nodes.every((node) => node.client.status === "end");

/** Watches the markers until the holder records its release or the deadline (plus grace) passes. */
export async function followUpRevoke(
  ctx: FollowUpDeps,
  revoke: { readonly key: Buffer; readonly marker: RevokeMarker; readonly quorumSize: number },
  record: Omit<AuditRecord, "outcome" | "detail">,
): Promise<void> {
  const { key, marker, quorumSize } = revoke;
  const follow = `follow-up of ${marker.auditId}`;
  try {
    while (Date.now() < marker.deadlineAt + REVOKE_GRACE_MS) {
      if (closed(ctx)) return;
      const found = await Promise.all(
        ctx.registry.nodes.map((node) => releasedAtOn(node, key, marker, ctx.nodeDeadlineMs)),
      );
      const releasedAt = found.find((at) => at !== null);
      if (releasedAt !== undefined && releasedAt !== null) {
        const releasedAfterMs = Math.max(0, Math.round(releasedAt - marker.at));
        await ctx.audit.append({
          ...record,
          followUpOf: marker.auditId,
          outcome: "success",
          holderDid: "released",
          releasedAfterMs,
          detail: `${follow}: released by the holder after ${releasedAfterMs} ms`,
        });
        return;
      }
      await sleep(POLL_EVERY_MS);
    }
    if (closed(ctx)) return;
    const held = await stillHeldOn(ctx, key, marker.value);
    await ctx.audit.append({
      ...record,
      followUpOf: marker.auditId,
      outcome: "failure",
      holderDid: held >= quorumSize ? "did-not-release" : "no-record",
      detail:
        held >= quorumSize
          ? `${follow}: holder did not release before the deadline: still held on ${held} node(s); force-release it`
          : `${follow}: holder did not release before the deadline: no release recorded, and the lock is no longer held on a majority (it expired or was deleted)`,
    });
  } catch (error) {
    logger.error({ err: error }, "revoke follow-up failed");
  }
}
