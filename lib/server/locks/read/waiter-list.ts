/**
 * The waiter entries a lock read returns whole (readLock's last part, ownership.ts), parsed into
 * what the wait-for graph needs: who waits (the entry's id and holder session), since when, until
 * when its entry lasts, and its owner labels. Entries are the library's (the wire protocol's
 * decodeWaiterMember): `{"id","labels","since","firstFailedAt"?,"session"?,"wake"?}` scored by the
 * epoch ms at which the entry lapses.
 */
import { decodeWaiterMember } from "@redlock-console/redlock/protocol";

/** One live waiter entry on one node. */
export interface WaiterRef {
  /** The acquire call's random id (the same on every node it is listed on). */
  readonly id: string;
  /** The waiter's holder session; null when it has none (`session: false`, another writer). */
  readonly session: string | null;
  /**
   * When the wait began (the contender's clock, epoch ms): its first failed attempt
   * (`firstFailedAt`), or for entries written before that field, when the acquire call began.
   */
  readonly sinceMs: number;
  /** When the entry lapses unless renewed (its score, epoch ms). */
  readonly expiresAtMs: number;
  readonly labels: Readonly<Record<string, string>>;
}

/** One member and its score; null when garbled (not an entry of this library). */
export function parseWaiterRef(member: string, score: number): WaiterRef | null {
  const decoded = decodeWaiterMember(member);
  if (!decoded || !Number.isFinite(score)) return null;
  return {
    id: decoded.id,
    session: decoded.session ?? null,
    sinceMs: decoded.firstFailedAt ?? decoded.since,
    expiresAtMs: score,
    labels: decoded.labels,
  };
}

/** readLock's flat [member, score, …] list; undefined when empty or not a list (older replies). */
export function parseWaiterList(reply: unknown): readonly WaiterRef[] | undefined {
  if (!Array.isArray(reply) || reply.length < 2) return undefined;
  const refs: WaiterRef[] = [];
  for (let index = 0; index + 1 < reply.length; index += 2) {
    const ref = parseWaiterRef(String(reply[index]), Number(reply[index + 1]));
    if (ref) refs.push(ref);
  }
  return refs.length > 0 ? refs : undefined;
}
