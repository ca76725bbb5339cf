import "server-only";
/**
 * The audit trail: each state-changing action is appended to the stream `redlock:audit` on every
 * reachable node, under one event id, so it survives a console restart, is shared by every
 * console replica, and outlives the loss of a minority of nodes. It is trimmed by length and by
 * age under the rule the replicas agreed on (stream-append.ts). Refused requests never land here:
 * they go to the refusal log (refusal-log.ts), so no subject can evict the evidence of what they
 * did by being refused. Reads merge the nodes' streams and de-duplicate by event id.
 */
import { randomUUID } from "node:crypto";
import { MAX_AUDIT_SCAN, type AuditEntry, type AuditStreamState } from "@/lib/api";
import { logger } from "../logger";
import type { ConsoleNode } from "../node-registry";
import { searchStream, type AuditFilter, type AuditStream, type Searchable } from "./audit-search";
import { cachedReads } from "./cached-reads";
import { appendOnNode, type StreamRetention } from "./stream-append";
import { fromStreamFields, toStreamFields } from "./stream-codec";
import { readStreamState } from "./stream-state";

export const AUDIT_STREAM = "redlock:audit";
const ACTIONS: AuditStream<AuditEntry> = { name: AUDIT_STREAM, parse: fromStreamFields };

type FollowUpField = "followUpOf" | "holderDid" | "releasedAfterMs";
/** The person behind the actor label (actor-fields.ts fills them from the Principal). */
export type PersonField = "person" | "credential" | "tokenName" | "role" | "rule" | "incident";
/** What a writer gives: the follow-up fields only when the entry is a follow-up. */
export type AuditRecord = Omit<AuditEntry, "id" | "at" | "nodes" | FollowUpField | PersonField> &
  Partial<Pick<AuditEntry, FollowUpField | PersonField>>;

/** A read: its filter, and how far back it may look per node (smaller for anonymous readers). */
export interface AuditRead {
  readonly filter?: AuditFilter;
  readonly maxScan: number;
}

export interface AuditReadResult<Entry> {
  readonly entries: Entry[];
  readonly unreachableNodes: string[];
  readonly scanLimitReached: boolean;
  readonly stream: AuditStreamState;
}

export interface AuditTrail {
  /**
   * Appends to every reachable node; resolves with the entry (its `nodes` name where it landed).
   * `id`: the entry's id when the action needed it before (a tombstone and a notice carry it).
   */
  append(record: AuditRecord, skipNodeIds?: ReadonlySet<string>, id?: string): Promise<AuditEntry>;
  /**
   * Newest first, merged across nodes, filtered when asked (audit-search.ts); shared reads.
   * @default read `{ maxScan: MAX_AUDIT_SCAN }`, unfiltered
   */
  read(limit: number, read?: AuditRead): Promise<AuditReadResult<AuditEntry>>;
}

export interface AuditStreamSettings {
  readonly nodes: readonly ConsoleNode[];
  readonly retention: StreamRetention;
  readonly deadlineMs: number;
  /**
   * The node has a command overdue right now (as the Redlock library tracks it). Such a node is
   * skipped rather than waited for, so an action never pays a second node timeout for its audit
   * line; the entry still lands on every node that answers.
   */
  readonly isHung?: (node: ConsoleNode) => boolean;
}

/** Writes `fields` to every reachable node not skipped; the ids of the nodes that took it. */
export async function appendEverywhere(
  { nodes, retention, deadlineMs, isHung = () => false }: AuditStreamSettings,
  stream: string,
  fields: readonly string[],
  skipNodeIds: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const written = await Promise.all(
    nodes.map((node) =>
      isHung(node) || skipNodeIds.has(node.id)
        ? false
        : appendOnNode(node, stream, retention, fields, deadlineMs),
    ),
  );
  return nodes.filter((_, index) => written[index]).map((node) => node.id);
}

/** Reads of one stream with its fill state, shared between identical queries (cached-reads.ts). */
export function sharedReads<Entry extends Searchable>(
  settings: AuditStreamSettings,
  stream: AuditStream<Entry>,
  /** The setting that raises this stream's cap, named in its warning. */
  maxLenVar: string,
) {
  const { nodes, retention, deadlineMs } = settings;
  const reads = cachedReads<AuditReadResult<Entry>>();
  return {
    read: (limit: number, { filter = {}, maxScan }: AuditRead = { maxScan: MAX_AUDIT_SCAN }) =>
      reads.get({ limit, filter, maxScan }, async () => {
        const [result, state] = await Promise.all([
          searchStream(stream, nodes, { deadlineMs, limit, filter, maxScan }),
          readStreamState(nodes, stream.name, retention, deadlineMs, maxLenVar),
        ]);
        return { ...result, stream: state };
      }),
    invalidate: () => reads.invalidate(),
  };
}

export function createAuditTrail(settings: AuditStreamSettings): AuditTrail {
  const reads = sharedReads(settings, ACTIONS, "CONSOLE_AUDIT_MAXLEN");
  return {
    async append(record, skipNodeIds, id = randomUUID()) {
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
      const stored = {
        ...entry,
        nodes: await appendEverywhere(settings, AUDIT_STREAM, toStreamFields(entry), skipNodeIds),
      };
      reads.invalidate();
      // Also in the server log: the trail's copy of last resort when no node took it.
      const level = stored.nodes.length === 0 ? "error" : "info";
      logger[level]({ audit: { ...stored, value: stored.value ? "[set]" : null } }, "audit");
      return stored;
    },

    read: reads.read,
  };
}
