/**
 * What the state store (CONSOLE_STATE_URL) returned, checked before any of it is shown (issue 32
 * row 13). Anyone who can write to that Redis can write to the stream, so an entry is kept only when
 * it is a transition (zod), its id is above the previous kept one (the console numbers them in
 * order), and it claims no instant after the store stamped it (a stream id is the store's own clock
 * when the entry was added; the console's clock differs from it by `skewMs`, measured at load). The
 * as-of instant is bounded the same way: by the stream id of the entry that carries it. Pure; tested
 * as tables in test/server/state-store.test.ts.
 */
import { transitionSchema, type Transition } from "@/lib/api";

/** Console and store clocks, and a flush, may disagree by this much without an entry being refused. */
export const CLOCK_TOLERANCE_MS = 1_000;

/** One stream entry as XRANGE returns it: its id and its flat field list. */
export type StreamEntry = readonly [id: string, fields: readonly string[]];

/** Why an entry was skipped. */
export type SkipReason = "stream-id" | "schema" | "id-order" | "after-stamp";

export interface CheckedHistory {
  /** Oldest first. */
  readonly transitions: Transition[];
  readonly skipped: Readonly<Record<SkipReason, number>>;
}

/** The store-clock ms of a stream id, when it is well formed and not after the store's now. */
export function stampOf(id: string, storeNowMs: number): number | null {
  const match = /^(\d{1,15})-\d{1,20}$/.exec(id);
  if (!match) return null;
  const stampMs = Number(match[1]);
  // An id after the store's clock was given explicitly (XADD with an id), not stamped by the store.
  return stampMs <= storeNowMs ? stampMs : null;
}

/** The value of `name` in a flat field list. */
export function fieldOf(fields: readonly string[], name: string): string | undefined {
  for (let index = 0; index + 1 < fields.length; index += 2)
    if (fields[index] === name) return fields[index + 1];
  return undefined;
}

function parseTransition(text: string | undefined): Transition | null {
  try {
    const parsed = transitionSchema.safeParse(JSON.parse(text ?? ""));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The transitions of `entries` (oldest first) that pass every check; the rest counted by reason.
 * `skewMs`: console clock minus store clock; `afterId`: the last id already kept (a follower's).
 */
export function checkEntries(
  entries: readonly StreamEntry[],
  storeNowMs: number,
  skewMs: number,
  afterId = 0,
): CheckedHistory {
  const skipped: Record<SkipReason, number> = {
    "stream-id": 0,
    schema: 0,
    "id-order": 0,
    "after-stamp": 0,
  };
  const transitions: Transition[] = [];
  let previousId = afterId;
  for (const [id, fields] of entries) {
    const stampMs = stampOf(id, storeNowMs);
    const transition = stampMs === null ? null : parseTransition(fieldOf(fields, "t"));
    const reason: SkipReason | null =
      stampMs === null
        ? "stream-id"
        : transition === null
          ? "schema"
          : transition.id <= previousId
            ? "id-order"
            : transition.at > stampMs + skewMs + CLOCK_TOLERANCE_MS
              ? "after-stamp"
              : null;
    if (reason !== null || transition === null) {
      if (reason) skipped[reason] += 1;
      continue;
    }
    previousId = transition.id;
    transitions.push(transition);
  }
  return { transitions, skipped };
}

/**
 * Until when the console watched (console clock), from the as-of stream's last entry: the instant
 * it claims, never later than when the store stamped it; null when absent or not stamped by the store.
 */
export function boundedAsOf(
  last: StreamEntry | undefined,
  storeNowMs: number,
  skewMs: number,
): number | null {
  if (!last) return null;
  const stampMs = stampOf(last[0], storeNowMs);
  const claimedMs = Number(fieldOf(last[1], "a"));
  if (stampMs === null || !Number.isSafeInteger(claimedMs) || claimedMs <= 0) return null;
  return Math.min(claimedMs, stampMs + skewMs);
}
