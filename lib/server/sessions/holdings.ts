import "server-only";
/**
 * What each holder session holds and waits for, from the live index (memory, no node read) and
 * from the waiters lists of the resources the index shows waited for (a bounded number of reads).
 */
import { MAX_WAITERS_LISTED } from "@/lib/api";
import { waitersKey } from "@redlock-console/redlock";
import { parseWaiterMember, sessionOfValue, sessionOfWaiterMember } from "../locks/read/ownership";
import { eachKeyInSlices } from "../locks/rows/key-walk";
import type { LiveIndex } from "../locks/rows/live-index";
import { withDeadline, type ConsoleNode } from "../node-registry";

/** Waiters lists read per request at most: each is one ZRANGEBYSCORE on one node. */
export const MAX_WAIT_LISTS_READ = 64;

/** One lock key (latin1 of its bytes) and the majority value that names the session. */
export interface Holding {
  readonly key: string;
  readonly value: string;
}

export interface Waiting {
  readonly key: string;
  readonly waiterId: string;
  readonly since: number;
  readonly expiresAt: number;
}

/** The value most nodes hold for `key` (ties: the first seen), or null. */
function majorityValue(index: LiveIndex, key: string): string | null {
  const counts = new Map<string, number>();
  let best: string | null = null;
  for (const read of index.reads(key)) {
    if (!read) continue;
    const count = (counts.get(read.value) ?? 0) + 1;
    counts.set(read.value, count);
    if (best === null || count > counts.get(best)!) best = read.value;
  }
  return best;
}

/**
 * Every row of the index whose majority value names a session, by session (keys in byte order).
 * Walked in slices that yield (key-walk.ts): at 100k locks one walk takes ~0.3 s.
 */
export async function holdingsBySession(
  index: LiveIndex,
  only?: string,
): Promise<Map<string, Holding[]>> {
  const bySession = new Map<string, Holding[]>();
  await eachKeyInSlices(
    (low) => index.keysFrom(low),
    (key) => {
      const value = majorityValue(index, key);
      const session = value === null ? null : sessionOfValue(value);
      if (session === null || (only !== undefined && session !== only)) return;
      const holdings = bySession.get(session) ?? [];
      holdings.push({ key, value: value! });
      bySession.set(session, holdings);
    },
  );
  return bySession;
}

/**
 * The waits of every session, read from the waiters lists of the resources the index shows waited
 * for: at most MAX_WAIT_LISTS_READ lists, each from one node that lists waiters for it.
 */
export async function waitsBySession(
  index: LiveIndex,
  nodes: readonly ConsoleNode[],
  deadlineMs: number,
  nowMs: number,
): Promise<{ waits: Map<string, Waiting[]>; read: number; skipped: number }> {
  const lists: Array<{ key: string; node: ConsoleNode }> = [];
  let skipped = 0;
  await eachKeyInSlices(
    (low) => index.keysFrom(low),
    (key) => {
      const position = index.reads(key).findIndex((read) => (read?.waiters?.count ?? 0) > 0);
      if (position === -1) return;
      if (lists.length < MAX_WAIT_LISTS_READ) lists.push({ key, node: nodes[position]! });
      else skipped += 1;
    },
  );
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
