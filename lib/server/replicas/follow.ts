import "server-only";
/**
 * Every replica (the writer too) follows the shared history with blocking reads (XREAD BLOCK) on
 * a connection of its own, and serves exactly what it reads: the same transitions under the same
 * ids on every replica. Entries are checked as at load (stored-entries.ts): a transition, its id
 * above the last one kept, dated no later than the store stamped it.
 */
import type { Redis } from "ioredis";
import type { Transition } from "@/lib/api";
import { logger } from "../logger";
import { AS_OF_STREAM, TRANSITIONS_STREAM } from "../timeline/state-store";
import {
  boundedAsOf,
  checkEntries,
  CLOCK_TOLERANCE_MS,
  fieldOf,
  stampOf,
  type StreamEntry,
} from "../timeline/stored-entries";

/** A blocking read waits this long for new entries before it asks again. */
const BLOCK_MS = 1_000;
const READ_COUNT = 1_000;
/** After a failed read (the store restarting), the next one waits this long. */
const RETRY_MS = 250;

export interface FollowedEntry {
  readonly transition: Transition;
  /** The writer's tag (epoch:replica) the entry was written with; "" for an entry without one. */
  readonly writer: string;
}

export interface FollowHandlers {
  entry(entry: FollowedEntry): void;
  /** The writer vouched for its view until `asOfMs` (console clock). */
  asOf(asOfMs: number): void;
}

/** "ms-seq" stream ids compared: negative when `a` is older. */
export function compareStreamIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split("-").map(Number) as [number, number];
  const [bMs, bSeq] = b.split("-").map(Number) as [number, number];
  return aMs !== bMs ? aMs - bMs : aSeq - bSeq;
}

type XReadReply = Array<[stream: string, entries: StreamEntry[]]> | null;

export class Follower {
  readonly #client: Redis;
  readonly #handlers: FollowHandlers;
  readonly #skewMs: number;
  #transitionsFrom: string;
  #asOfFrom: string;
  #lastId: number;
  #closed = false;
  #loop: Promise<void> = Promise.resolve();

  constructor(
    client: Redis,
    handlers: FollowHandlers,
    from: { transitions: string; asOf: string; lastId: number; skewMs: number },
  ) {
    this.#client = client;
    this.#handlers = handlers;
    this.#transitionsFrom = from.transitions;
    this.#asOfFrom = from.asOf;
    this.#lastId = from.lastId;
    this.#skewMs = from.skewMs;
  }

  /** The last transition id served. */
  get lastId(): number {
    return this.#lastId;
  }

  start(): void {
    this.#loop = this.#run();
  }

  /** Reads, without blocking, everything stored so far (a replica about to write catches up). */
  async catchUp(store: Redis): Promise<void> {
    for (;;) {
      const reply = (await store.xread(
        "COUNT",
        READ_COUNT,
        "STREAMS",
        TRANSITIONS_STREAM,
        AS_OF_STREAM,
        this.#transitionsFrom,
        this.#asOfFrom,
      )) as XReadReply;
      const read = this.#take(reply);
      if (read < READ_COUNT) return;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#client.disconnect();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      try {
        const reply = (await this.#client.xread(
          "COUNT",
          READ_COUNT,
          "BLOCK",
          BLOCK_MS,
          "STREAMS",
          TRANSITIONS_STREAM,
          AS_OF_STREAM,
          this.#transitionsFrom,
          this.#asOfFrom,
        )) as XReadReply;
        this.#take(reply);
      } catch (error) {
        if (this.#closed) return;
        logger.debug({ error: String(error) }, "shared history: read failed, retrying");
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      }
    }
  }

  /** Hands on the entries not taken yet (the catch-up and the loop may read the same ones). */
  #take(reply: XReadReply): number {
    let read = 0;
    // The store's clock now, give or take the skew measured at load: an entry it stamped a moment
    // ago must not read as one dated in its future.
    const storeNowMs = Date.now() - this.#skewMs + CLOCK_TOLERANCE_MS;
    for (const [stream, entries] of reply ?? []) {
      read = Math.max(read, entries.length);
      if (stream === TRANSITIONS_STREAM) {
        for (const entry of entries) {
          if (compareStreamIds(entry[0], this.#transitionsFrom) <= 0) continue;
          this.#transitionsFrom = entry[0];
          // An entry read as it is written is dated no later than now. A stamp in the store's
          // future (someone's XADD with an explicit id) makes Redis stamp every later entry after
          // it: those are judged by now, not refused forever.
          const stamped: StreamEntry =
            stampOf(entry[0], storeNowMs) !== null
              ? entry
              : [`${Math.floor(storeNowMs)}-0`, entry[1]];
          const [transition] = checkEntries(
            [stamped],
            storeNowMs,
            this.#skewMs,
            this.#lastId,
          ).transitions;
          if (!transition) continue;
          this.#lastId = transition.id;
          this.#handlers.entry({ transition, writer: fieldOf(entry[1], "w") ?? "" });
        }
      } else {
        const last = entries.at(-1);
        if (!last || compareStreamIds(last[0], this.#asOfFrom) <= 0) continue;
        this.#asOfFrom = last[0];
        const asOfMs = boundedAsOf(last, storeNowMs, this.#skewMs);
        if (asOfMs !== null) this.#handlers.asOf(asOfMs);
      }
    }
    return read;
  }
}
