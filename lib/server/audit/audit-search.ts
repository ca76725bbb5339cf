import "server-only";
/**
 * A read of an audit stream (actions or refusals), filtered by person, resource, time and id, or
 * not at all. Each node's stream is read newest first in pages, within the time window (stream
 * ids carry the node's clock, so the window is widened by CLOCK_MARGIN_MS and each entry's own
 * `at` decides), until `limit` matches or the reader's scan window (`maxScan` entries per node),
 * and the answer says when it stopped there. Entries merge across nodes by their event id.
 */
import type { AuditPerson, AuditQuery } from "@/lib/api";
import { withDeadline, type ConsoleNode } from "../node-registry";

export type AuditFilter = Omit<AuditQuery, "limit" | "kind">;

/** What a filter looks at: an action entry and a refusal aggregate both have these. */
export interface Searchable {
  readonly id: string;
  readonly at: number;
  readonly actor: string;
  readonly person: AuditPerson | null;
  readonly resources: readonly string[];
  readonly nodes: readonly string[];
}

/** One stream and how its entries are read back (a foreign or corrupt entry: null, skipped). */
export interface AuditStream<Entry extends Searchable> {
  readonly name: string;
  readonly parse: (fields: readonly string[]) => Entry | null;
}

export interface SearchResult<Entry> {
  readonly entries: Entry[];
  readonly unreachableNodes: string[];
  readonly scanLimitReached: boolean;
}

const PAGE = 500;
/** Node clocks and the console's may differ by this much; entries decide by their own `at`. */
const CLOCK_MARGIN_MS = 60_000;

export const isFiltered = (filter: AuditFilter): boolean =>
  Object.values(filter).some((value) => value !== undefined);

/** The person filter: an exact subject or email, or words of the actor's label. */
function personMatches(entry: Searchable, wanted: string): boolean {
  const lower = wanted.toLowerCase();
  return (
    entry.person?.subject === wanted ||
    entry.person?.email?.toLowerCase() === lower ||
    entry.actor.toLowerCase().includes(lower)
  );
}

export function entryMatches(entry: Searchable, filter: AuditFilter): boolean {
  return (
    (filter.id === undefined || entry.id === filter.id) &&
    (filter.person === undefined || personMatches(entry, filter.person)) &&
    (filter.resource === undefined || entry.resources.includes(filter.resource)) &&
    (filter.since === undefined || entry.at >= filter.since) &&
    (filter.until === undefined || entry.at <= filter.until)
  );
}

interface Scan {
  readonly deadlineMs: number;
  readonly limit: number;
  readonly filter: AuditFilter;
  /** Entries looked at per node at most. */
  readonly maxScan: number;
}

/** One node's matches, newest first; undefined when it did not answer. */
async function searchNode<Entry extends Searchable>(
  stream: AuditStream<Entry>,
  node: ConsoleNode,
  { deadlineMs, limit, filter, maxScan }: Scan,
): Promise<{ matches: Entry[]; capped: boolean } | undefined> {
  let end = filter.until === undefined ? "+" : String(filter.until + CLOCK_MARGIN_MS);
  const start =
    filter.since === undefined ? "-" : String(Math.max(0, filter.since - CLOCK_MARGIN_MS));
  // Unfiltered, every entry matches: one page of `limit` is the whole read.
  const pageSize = Math.min(isFiltered(filter) ? PAGE : limit, maxScan);
  const matches: Entry[] = [];
  let scanned = 0;
  try {
    while (scanned < maxScan && matches.length < limit) {
      const count = Math.min(pageSize, maxScan - scanned);
      const page = await withDeadline(
        node.client.xrevrange(stream.name, end, start, "COUNT", count),
        deadlineMs,
      );
      scanned += page.length;
      for (const [, fields] of page) {
        const entry = stream.parse(fields);
        if (entry && entryMatches(entry, filter)) matches.push(entry);
      }
      if (page.length < count) return { matches, capped: false };
      end = `(${page[page.length - 1]![0]}`; // exclusive: the next page starts below this id
    }
  } catch {
    return undefined;
  }
  return { matches, capped: matches.length < limit };
}

export async function searchStream<Entry extends Searchable>(
  stream: AuditStream<Entry>,
  nodes: readonly ConsoleNode[],
  scan: Scan,
): Promise<SearchResult<Entry>> {
  const replies = await Promise.all(nodes.map((node) => searchNode(stream, node, scan)));
  const merged = new Map<string, Entry>();
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
      .slice(0, scan.limit),
    unreachableNodes: nodes.filter((_, index) => !replies[index]).map((node) => node.id),
    scanLimitReached: replies.some((reply) => reply?.capped === true),
  };
}
