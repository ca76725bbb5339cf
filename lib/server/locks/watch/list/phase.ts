/**
 * Where a node's watch stands, as one value, and the one function that moves it. The API's mode is
 * the phase's kind. `down` keeps the phase the watch resumes when the node answers again: a paused
 * node lost nothing (its notifications wait in the socket), a dropped connection left a gap.
 */
import type { IndexMode, ListingReason } from "@/lib/api";

/** Listing reasons after which the node's data cannot be trusted until a listing ends. */
export type GapReason = Extract<
  ListingReason,
  "start" | "reconnect" | "restart" | "overflow" | "notifications"
>;

const GAP_REASONS: ReadonlySet<ListingReason> = new Set<GapReason>([
  "start",
  "reconnect",
  "restart",
  "overflow",
  "notifications",
]);

export const isGapReason = (reason: ListingReason): reason is GapReason => GAP_REASONS.has(reason);

/** The node answers. `asOfMs`: every change up to this instant is in the index (null: never listed). */
export type UpPhase =
  /** The index may lack changes since `sinceMs` (why: `reason`; "start": never listed): a relist heals it. */
  | {
      readonly kind: "listing";
      readonly reason: GapReason;
      readonly sinceMs: number;
      readonly asOfMs: number | null;
    }
  /** Listed, then kept current by keyspace notifications. */
  | { readonly kind: "watching"; readonly asOfMs: number }
  /** Listed; without notifications, relisted in paced passes. */
  | { readonly kind: "polling"; readonly asOfMs: number };

export type WatchPhase =
  | UpPhase
  /** Unreachable: its connection closed, or it leaves PINGs unanswered; `resume` once it answers. */
  | {
      readonly kind: "down";
      readonly cause: "disconnected" | "unresponsive";
      readonly resume: UpPhase;
    };

export type WatchEvent =
  /** The command connection is (again) ready. */
  | { readonly type: "connected" }
  | { readonly type: "disconnected"; readonly atMs: number }
  /** The liveness probe's PING went unanswered past the node timeout, or was answered again. */
  | { readonly type: "unanswered" }
  | { readonly type: "answered" }
  /** Changes may have been missed from `atMs` on (subscriber lost, overflow, restart, a relist). */
  | { readonly type: "gap"; readonly reason: GapReason; readonly atMs: number }
  /** A listing read the node's notify-keyspace-events: notifications are on or off. */
  | { readonly type: "notificationsChecked"; readonly on: boolean }
  /** A listing ended; `subscribed`: the subscriber stayed subscribed throughout it. */
  | {
      readonly type: "listed";
      readonly notificationsOn: boolean;
      readonly subscribed: boolean;
      readonly startedAtMs: number;
      readonly endedAtMs: number;
    }
  /** A subscriber PING sent at `sentAtMs` was answered, and the reads it waited for are done. */
  | { readonly type: "caughtUp"; readonly sentAtMs: number };

/** A new watch: not connected yet, never listed. */
export function initialPhase(nowMs: number): WatchPhase {
  const resume: UpPhase = { kind: "listing", reason: "start", sinceMs: nowMs, asOfMs: null };
  return { kind: "down", cause: "disconnected", resume };
}

/** The phase after `event`; the same object when the event changes nothing. */
export function nextPhase(phase: WatchPhase, event: WatchEvent): WatchPhase {
  switch (event.type) {
    case "connected":
      return phase.kind === "down" && phase.cause === "disconnected" ? phase.resume : phase;
    case "disconnected": {
      if (phase.kind === "down" && phase.cause === "disconnected") return phase;
      const up = phase.kind === "down" ? phase.resume : phase;
      return { kind: "down", cause: "disconnected", resume: withGap(up, "reconnect", event.atMs) };
    }
    case "unanswered":
      return phase.kind === "down" ? phase : { kind: "down", cause: "unresponsive", resume: phase };
    case "answered":
      return phase.kind === "down" && phase.cause === "unresponsive" ? phase.resume : phase;
    case "caughtUp":
      // Only a watching node's notifications prove it current; a down node's wait unread.
      return phase.kind === "watching" && event.sentAtMs > phase.asOfMs
        ? { kind: "watching", asOfMs: event.sentAtMs }
        : phase;
    default: {
      if (phase.kind !== "down") return nextUpPhase(phase, event);
      const resume = nextUpPhase(phase.resume, event);
      return resume === phase.resume ? phase : { ...phase, resume };
    }
  }
}

type UpEvent = Extract<WatchEvent, { type: "gap" | "notificationsChecked" | "listed" }>;

function nextUpPhase(phase: UpPhase, event: UpEvent): UpPhase {
  switch (event.type) {
    case "gap":
      return withGap(phase, event.reason, event.atMs);
    case "notificationsChecked":
      if (phase.kind === "watching" && !event.on) return { kind: "polling", asOfMs: phase.asOfMs };
      if (phase.kind === "polling" && event.on) return { kind: "watching", asOfMs: phase.asOfMs };
      return phase;
    case "listed":
      // A polling pass covers what the node held when it began.
      if (!event.notificationsOn) return { kind: "polling", asOfMs: event.startedAtMs };
      if (event.subscribed) return { kind: "watching", asOfMs: event.endedAtMs };
      // The subscriber dropped during the listing: the gap stays open, but the node was listed.
      return phase.kind === "listing" && phase.reason === "start"
        ? { ...phase, reason: "reconnect" }
        : phase;
  }
}

/**
 * A gap already open keeps its start (and its reason: "start" until the first listing ends). The
 * index vouches for nothing after the gap began, whatever a heartbeat said since (a subscriber whose
 * flags were switched off still answers its PINGs).
 */
function withGap(phase: UpPhase, reason: GapReason, atMs: number): UpPhase {
  if (phase.kind === "listing") return phase;
  return { kind: "listing", reason, sinceMs: atMs, asOfMs: Math.min(phase.asOfMs, atMs) };
}

export const modeOf = (phase: WatchPhase): IndexMode => phase.kind;

const upPhaseOf = (phase: WatchPhase): UpPhase => (phase.kind === "down" ? phase.resume : phase);

/** Every change up to this instant is in the index; null before the first listing ended. */
export const asOfMsOf = (phase: WatchPhase): number | null => upPhaseOf(phase).asOfMs;

/** Whether a listing ever ended (a relist is then a reconnect, not a start). */
export function listedOnce(phase: WatchPhase): boolean {
  const up = upPhaseOf(phase);
  return up.kind !== "listing" || up.reason !== "start";
}

/** When the open gap began; null when the index has none. */
export function gapSinceMs(phase: WatchPhase): number | null {
  const up = upPhaseOf(phase);
  return up.kind === "listing" ? up.sinceMs : null;
}

export const isDisconnected = (phase: WatchPhase): boolean =>
  phase.kind === "down" && phase.cause === "disconnected";
