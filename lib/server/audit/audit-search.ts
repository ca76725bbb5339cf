import "server-only";
/**
 * A filtered read of the audit trail: by person, resource, time and id. Each node's stream is read
 * newest first in pages, within the time window (stream ids carry the node's clock, so the window is
 * widened by CLOCK_MARGIN_MS and each entry's own `at` decides), until `limit` matches or
 * MAX_AUDIT_SCAN entries per node, and the answer says when it stopped there.
 */
import { MAX_AUDIT_SCAN, type AuditEntry, type AuditQuery } from "@/lib/api";
import { withDeadline, type ConsoleNode } from "../node-registry";
import { fromStreamFields } from "./stream-codec";

export type AuditFilter = Omit<AuditQuery, "limit">;

const PAGE = 500;
/** Node clocks and the console's may differ by this much; entries decide by their own `at`. */
const CLOCK_MARGIN_MS = 60_000;

export const isFiltered = (filter: AuditFilter): boolean =>
  Object.values(filter).some((value) => value !== undefined);

/** The person filter: an exact subject or email, or words of the actor's label. */
function personMatches(entry: AuditEntry, wanted: string): boolean {
  const lower = wanted.toLowerCase();
  return (
    entry.person?.subject === wanted ||
    entry.person?.email?.toLowerCase() === lower ||
    entry.actor.toLowerCase().includes(lower)
  );
}

export function entryMatches(entry: AuditEntry, filter: AuditFilter): boolean {
  return (
    (filter.id === undefined || entry.id === filter.id) &&
    (filter.person === undefined || personMatches(entry, filter.person)) &&
    (filter.resource === undefined || entry.resources.includes(filter.resource)) &&
    (filter.since === undefined || entry.at >= filter.since) &&
    (filter.until === undefined || entry.at <= filter.until)
  );
}

/** One node's matches, newest first; undefined when it did not answer. */
async function searchNode(
  stream: string,
  node: ConsoleNode,
  deadlineMs: number,
  limit: number,
  filter: AuditFilter,
): Promise<{ matches: AuditEntry[]; capped: boolean } | undefined> {
  let end = filter.until === undefined ? "+" : String(filter.until + CLOCK_MARGIN_MS);
  const start =
    filter.since === undefined ? "-" : String(Math.max(0, filter.since - CLOCK_MARGIN_MS));
  const matches: AuditEntry[] = [];
  let scanned = 0;
  try {
    while (scanned < MAX_AUDIT_SCAN && matches.length < limit) {
      const page = await withDeadline(
        node.client.xrevrange(stream, end, start, "COUNT", PAGE),
        deadlineMs,
      );
      scanned += page.length;
      for (const [, fields] of page) {
        const entry = fromStreamFields(fields);
        if (entry && entryMatches(entry, filter)) matches.push(entry);
      }
      if (page.length < PAGE) return { matches, capped: false };
      end = `(${page[page.length - 1]![0]}`; // exclusive: the next page starts below this id
    }
  } catch {
    return undefined;
  }
  return { matches, capped: matches.length < limit };
}

export async function searchAudit(
  stream: string,
  nodes: readonly ConsoleNode[],
  deadlineMs: number,
  limit: number,
  filter: AuditFilter,
): Promise<{ entries: AuditEntry[]; unreachableNodes: string[]; scanLimitReached: boolean }> {
  const replies = await Promise.all(
    nodes.map((node) => searchNode(stream, node, deadlineMs, limit, filter)),
  );
  const merged = new Map<string, AuditEntry>();
  replies.forEach((reply, index) => {
    for (const entry of reply?.matches ?? []) {
      const known = merged.get(entry.id);
      merged.set(entry.id, {
        ...(known ?? entry),
        nodes: [...(known?.nodes ?? []), nodes[index]!.id],
      });
    }
  });
  return {
    entries: [...merged.values()]
      .sort((a, b) => b.at - a.at || (a.id < b.id ? -1 : 1))
      .slice(0, limit),
    unreachableNodes: nodes.filter((_, index) => !replies[index]).map((node) => node.id),
    scanLimitReached: replies.some((reply) => reply?.capped === true),
  };
}
