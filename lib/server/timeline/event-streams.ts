import "server-only";
/**
 * Who may hold an event stream (`GET /api/events/stream`) open, and for how long:
 * - slots: `total` at most; anonymous readers share at most `anonymousShare` of them, so signed-in
 *   operators always have `total - anonymousShare` left however many anonymous streams are open;
 * - a per-client cap (by client address): `perClientAnonymous` / `perClientSignedIn`;
 * - a refusal is a 429 with Retry-After;
 * - each stream buffers at most `bufferBytes` its reader has not taken: past that the reader is
 *   slow, and its stream is closed (it gets what was buffered, then the end; an EventSource
 *   reconnects with its Last-Event-ID and is replayed what it missed), never buffered further;
 * - a signed-in stream ends when its credential does: at logout (this replica's, at once; another
 *   replica's, at the next recheck) and at the session's expiry.
 * Kept per console (the object console.ts builds), not per module: tests run several consoles in one process.
 */
import { ApiError } from "../errors";

export interface EventStreamLimits {
  readonly total: number;
  readonly anonymousShare: number;
  readonly perClientAnonymous: number;
  readonly perClientSignedIn: number;
  /** Bytes queued for a reader that has not read them, per stream. */
  readonly bufferBytes: number;
  /** A signed-in stream's credential is read again this often (logouts on other replicas). */
  readonly recheckMs: number;
  /** Retry-After of a refusal, in seconds. */
  readonly retryAfterS: number;
}

export const EVENT_STREAM_LIMITS: EventStreamLimits = {
  total: 200,
  anonymousShare: 150,
  perClientAnonymous: 8,
  perClientSignedIn: 32,
  bufferBytes: 256 * 1024,
  recheckMs: 30_000,
  retryAfterS: 5,
};

export interface StreamSlot {
  readonly client: string;
  readonly signedIn: boolean;
  /** The credential's label (session:…) for signed-in streams; null when anonymous. */
  readonly label: string | null;
  /** Closes the stream (logout, expiry, slow reader, console closing). */
  end: (why: StreamEnd) => void;
}

export type StreamEnd = "client" | "slow-reader" | "logout" | "expired";

export class EventStreams {
  readonly limits: EventStreamLimits;
  readonly #open = new Set<StreamSlot>();
  readonly #perClient = new Map<string, number>();
  #anonymous = 0;
  #dropped = 0;

  constructor(limits: EventStreamLimits = EVENT_STREAM_LIMITS) {
    this.limits = limits;
  }

  /** Streams open, anonymous ones, and slow readers dropped since the start. */
  stats(): { open: number; anonymous: number; droppedSlowReaders: number } {
    return { open: this.#open.size, anonymous: this.#anonymous, droppedSlowReaders: this.#dropped };
  }

  /** Takes a slot, or throws a 429 with Retry-After. */
  admit(slot: StreamSlot): void {
    const { limits } = this;
    const refuse = (message: string) => {
      throw new ApiError("rate_limited", message, {
        headers: {
          "retry-after": String(limits.retryAfterS),
        },
      });
    };
    if (this.#open.size >= limits.total)
      refuse(`At most ${limits.total} event streams may be open at once.`);
    if (!slot.signedIn && this.#anonymous >= limits.anonymousShare)
      refuse(
        `At most ${limits.anonymousShare} event streams may be open without a credential (the rest are kept for signed-in operators).`,
      );
    const cap = slot.signedIn ? limits.perClientSignedIn : limits.perClientAnonymous;
    const key = `${slot.signedIn ? "in" : "anon"}:${slot.client}`;
    if ((this.#perClient.get(key) ?? 0) >= cap)
      refuse(`At most ${cap} event streams may be open from one client at once.`);
    this.#open.add(slot);
    this.#perClient.set(key, (this.#perClient.get(key) ?? 0) + 1);
    if (!slot.signedIn) this.#anonymous += 1;
  }

  /** Gives the slot back (once; later calls do nothing). */
  release(slot: StreamSlot, why: StreamEnd): void {
    if (!this.#open.delete(slot)) return;
    const key = `${slot.signedIn ? "in" : "anon"}:${slot.client}`;
    const left = (this.#perClient.get(key) ?? 1) - 1;
    if (left > 0) this.#perClient.set(key, left);
    else this.#perClient.delete(key);
    if (!slot.signedIn) this.#anonymous -= 1;
    if (why === "slow-reader") this.#dropped += 1;
  }

  /** A logout on this replica: the streams opened with that credential end now. */
  loggedOut(label: string): void {
    for (const slot of [...this.#open]) if (slot.label === label) slot.end("logout");
  }
}

const perConsole = new WeakMap<object, EventStreams>();

/** The event streams of one console (created on first use). */
export function eventStreamsOf(ctx: object): EventStreams {
  let streams = perConsole.get(ctx);
  if (!streams) {
    streams = new EventStreams();
    perConsole.set(ctx, streams);
  }
  return streams;
}
