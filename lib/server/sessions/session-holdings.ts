import "server-only";
/**
 * Which holder session holds which locks, and which locks are waited for, kept as the live index
 * changes: a handler of the index (LiveIndex.addHandler, registered by the composition root on a
 * coalesced queue: one pending change per key, nothing dropped), so a session's page or a release
 * of a whole session looks its locks up instead of walking every row of the index per request.
 * Only keys are kept; values are read from the index when asked, so a key names its session in one
 * place.
 */
import type {
  HandlerRegistration,
  IndexChange,
  IndexHandler,
  LiveIndex,
  Reads,
} from "../locks/rows/live-index";
import { BTree } from "../locks/rows/btree";
import { sessionOfValue } from "../locks/read/ownership";

/** One lock key (latin1 of its bytes) and the plurality value (pluralityValue) that names the session. */
export interface Holding {
  readonly key: string;
  readonly value: string;
}

/**
 * The value most nodes hold, or null: a plurality, not a majority (a value on 2 of 5 nodes can
 * win), as a session's holdings list every lock that names it. Ties go to the value that reached
 * the top count first, in node order (locks/rows/quorum.ts's leadingValue breaks them by expiry,
 * then by the smaller value; this reads no expiry).
 */
export function pluralityValue(reads: Reads): string | null {
  const counts = new Map<string, number>();
  let best: string | null = null;
  for (const read of reads) {
    if (!read) continue;
    const count = (counts.get(read.value) ?? 0) + 1;
    counts.set(read.value, count);
    if (best === null || count > counts.get(best)!) best = read.value;
  }
  return best;
}

const sessionOfReads = (reads: Reads): string | null => {
  const value = pluralityValue(reads);
  return value === null ? null : sessionOfValue(value);
};

const waitedOn = (reads: Reads) => reads.some((read) => (read?.waiters?.count ?? 0) > 0);

export class SessionHoldings implements IndexHandler {
  readonly #index: LiveIndex;
  /** Per lock key whose value names a session: that session. */
  readonly #sessionOf = new Map<string, string>();
  /** Per session: the keys naming it. */
  readonly #keysOf = new Map<string, Set<string>>();
  /** Keys some node lists waiters for, in byte order. */
  readonly #waited = new BTree<string, true>();
  #registration: HandlerRegistration | null = null;

  constructor(index: LiveIndex) {
    this.#index = index;
  }

  /** The index's registration of this handler: `caughtUp` waits for its queue. */
  registered(registration: HandlerRegistration): void {
    this.#registration = registration;
  }

  change(change: IndexChange): void {
    this.#file(change.key, sessionOfReads(change.reads));
    if (waitedOn(change.reads)) this.#waited.set(change.key, true);
    else this.#waited.delete(change.key);
  }

  /** Resolves once every change the index has told this handler of is filed. */
  async caughtUp(): Promise<void> {
    await this.#registration?.drained();
  }

  /** The locks naming `sessionId`, keys in byte order, each with the value the index holds now. */
  holdingsOf(sessionId: string): Holding[] {
    const keys = [...(this.#keysOf.get(sessionId) ?? [])].sort();
    return keys.flatMap((key) => {
      const value = pluralityValue(this.#index.reads(key));
      return value !== null && sessionOfValue(value) === sessionId ? [{ key, value }] : [];
    });
  }

  /** How many locks name `sessionId`. */
  heldCount(sessionId: string): number {
    return this.#keysOf.get(sessionId)?.size ?? 0;
  }

  /** Every session some lock names. */
  sessions(): IterableIterator<string> {
    return this.#keysOf.keys();
  }

  /** The first `limit` waited-for keys in byte order, and how many more there are. */
  waitedKeys(limit: number): { keys: string[]; skipped: number } {
    const keys: string[] = [];
    for (const key of this.#waited.keys()) {
      if (keys.length === limit) break;
      keys.push(key);
    }
    return { keys, skipped: this.#waited.size - keys.length };
  }

  #file(key: string, session: string | null): void {
    const before = this.#sessionOf.get(key);
    if (before === session) return;
    if (before !== undefined) {
      const keys = this.#keysOf.get(before)!;
      keys.delete(key);
      if (keys.size === 0) this.#keysOf.delete(before);
      this.#sessionOf.delete(key);
    }
    if (session === null) return;
    this.#sessionOf.set(key, session);
    const keys = this.#keysOf.get(session);
    if (keys) keys.add(key);
    else this.#keysOf.set(session, new Set([key]));
  }
}
