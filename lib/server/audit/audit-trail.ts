import "server-only";
/**
 * The audit trail: each state-changing action is appended (XADD … MAXLEN ~) to the stream
 * `redlock:audit` on every reachable node, under one event id, so it survives a console restart,
 * is shared by every console replica, and outlives the loss of a minority of nodes. Reads merge the
 * nodes' streams and de-duplicate by event id.
 */
import { randomUUID } from "node:crypto";
import type { AuditEntry } from "@/lib/api";
import { logger } from "../logger";
import { withDeadline, type ConsoleNode } from "../node-registry";
import { isFiltered, searchAudit, type AuditFilter } from "./audit-search";
import { fromStreamFields, toStreamFields } from "./stream-codec";

export const AUDIT_STREAM = "redlock:audit";

type FollowUpField = "followUpOf" | "holderDid" | "releasedAfterMs";
/** The person behind the actor label (actor-fields.ts fills them from the Principal). */
export type PersonField = "person" | "credential" | "tokenName" | "role" | "rule" | "incident";
/** What a writer gives: the follow-up fields only when the entry is a follow-up. */
export type AuditRecord = Omit<AuditEntry, "id" | "at" | "nodes" | FollowUpField | PersonField> &
  Partial<Pick<AuditEntry, FollowUpField | PersonField>>;

export interface AuditTrail {
  /**
   * Appends to every reachable node; resolves with the entry (its `nodes` name where it landed).
   * `id`: the entry's id when the action needed it before (a tombstone and a notice carry it).
   */
  append(record: AuditRecord, skipNodeIds?: ReadonlySet<string>, id?: string): Promise<AuditEntry>;
  /** Newest first, merged across nodes; with a filter, looked for (audit-search.ts). */
  read(
    limit: number,
    filter?: AuditFilter,
  ): Promise<{ entries: AuditEntry[]; unreachableNodes: string[]; scanLimitReached?: boolean }>;
}

/**
 * `isHung(node)`: the node has a command overdue right now (as the Redlock library tracks it). Such
 * a node is skipped rather than waited for, so an action never pays a second node timeout for its
 * audit line; the entry still lands on every node that answers.
 */
export function createAuditTrail(
  nodes: readonly ConsoleNode[],
  maxLen: number,
  deadlineMs: number,
  isHung: (node: ConsoleNode) => boolean = () => false,
): AuditTrail {
  return {
    async append(record, skipNodeIds = new Set(), id = randomUUID()) {
      const entry: AuditEntry = {
        followUpOf: null,
        holderDid: null,
        releasedAfterMs: null,
        person: null,
        credential: null,
        tokenName: null,
        role: null,
        rule: null,
        incident: null,
        ...record,
        id,
        at: Date.now(),
        nodes: [],
      };
      const fields = toStreamFields(entry);
      const written = await Promise.all(
        nodes.map((node) =>
          isHung(node) || skipNodeIds.has(node.id)
            ? false
            : withDeadline(
                node.client.xadd(AUDIT_STREAM, "MAXLEN", "~", maxLen, "*", ...fields),
                deadlineMs,
              ).then(
                () => true,
                () => false,
              ),
        ),
      );
      const stored = {
        ...entry,
        nodes: nodes.filter((_, index) => written[index]).map((node) => node.id),
      };
      // Also in the server log: the trail's copy of last resort when no node took it.
      const level = stored.nodes.length === 0 ? "error" : "info";
      logger[level]({ audit: { ...stored, value: stored.value ? "[set]" : null } }, "audit");
      return stored;
    },

    async read(limit, filter) {
      if (filter && isFiltered(filter))
        return searchAudit(AUDIT_STREAM, nodes, deadlineMs, limit, filter);
      const replies = await Promise.all(
        nodes.map((node) =>
          withDeadline(
            node.client.xrevrange(AUDIT_STREAM, "+", "-", "COUNT", limit),
            deadlineMs,
          ).catch(() => undefined),
        ),
      );
      const merged = new Map<string, AuditEntry>();
      replies.forEach((reply, index) => {
        for (const [, fields] of reply ?? []) {
          const entry = fromStreamFields(fields);
          if (!entry) continue;
          const known = merged.get(entry.id);
          merged.set(entry.id, {
            ...(known ?? entry),
            nodes: [...(known?.nodes ?? []), nodes[index]!.id],
          });
        }
      });
      const entries = [...merged.values()]
        .sort((a, b) => b.at - a.at || (a.id < b.id ? -1 : 1))
        .slice(0, limit);
      const unreachableNodes = nodes
        .filter((_, index) => replies[index] === undefined)
        .map((node) => node.id);
      return { entries, unreachableNodes };
    },
  };
}
