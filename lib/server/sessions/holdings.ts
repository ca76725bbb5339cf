import "server-only";
/**
 * What each holder session waits for: the waiters lists of the resources the index shows waited
 * for (session-holdings.ts keeps which), a bounded number of reads. What each holds: session-holdings.ts.
 */
import { MAX_WAITERS_LISTED } from "@/lib/api";
import { waitersKey } from "@redlock-console/redlock";
import { parseWaiterMember, sessionOfWaiterMember } from "../locks/read/ownership";
import type { LiveIndex } from "../locks/rows/live-index";
import { withDeadline, type ConsoleNode } from "../node-registry";
import type { SessionHoldings } from "./session-holdings";

/** Waiters lists read per request at most: each is one ZRANGEBYSCORE on one node. */
export const MAX_WAIT_LISTS_READ = 64;

export interface Waiting {
  readonly key: string;
  readonly waiterId: string;
  readonly since: number;
  readonly expiresAt: number;
}

/**
 * The waits of every session, read from the waiters lists of the resources the index shows waited
 * for: at most MAX_WAIT_LISTS_READ lists (the first in byte order), each from one node that lists
 * waiters for it.
 */
export async function waitsBySession(
  index: LiveIndex,
  holdings: Pick<SessionHoldings, "waitedKeys">,
  nodes: readonly ConsoleNode[],
  deadlineMs: number,
  nowMs: number,
): Promise<{ waits: Map<string, Waiting[]>; read: number; skipped: number }> {
  const waited = holdings.waitedKeys(MAX_WAIT_LISTS_READ);
  const lists = waited.keys.flatMap((key) => {
    const position = index.reads(key).findIndex((read) => (read?.waiters?.count ?? 0) > 0);
    return position === -1 ? [] : [{ key, node: nodes[position]! }];
  });
  const skipped = waited.skipped;
  const waits = new Map<string, Waiting[]>();
  await Promise.all(
    lists.map(async ({ key, node }) => {
      const reply = await withDeadline(
        node.client.zrangebyscore(
          waitersKey(Buffer.from(key, "latin1")),
          nowMs,
          "+inf",
          "WITHSCORES",
          "LIMIT",
          0,
          MAX_WAITERS_LISTED,
        ),
        deadlineMs,
      ).catch(() => [] as string[]);
      for (let at = 0; at + 1 < reply.length; at += 2) {
        const member = reply[at]!;
        const session = sessionOfWaiterMember(member);
        const waiter = session === null ? null : parseWaiterMember(member, Number(reply[at + 1]));
        if (session === null || waiter === null) continue;
        const found = waits.get(session) ?? [];
        found.push({ key, waiterId: waiter.id, since: waiter.since, expiresAt: waiter.expiresAt });
        waits.set(session, found);
      }
    }),
  );
  return { waits, read: lists.length, skipped };
}
