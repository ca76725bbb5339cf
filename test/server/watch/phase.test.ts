/** The watch's phase: every transition as a row of a table (phase before, event, phase after). */
import { describe, expect, it } from "vitest";
import {
  asOfMsOf,
  gapSinceMs,
  initialPhase,
  listedOnce,
  modeOf,
  nextPhase,
  type UpPhase,
  type WatchEvent,
  type WatchPhase,
} from "@/lib/server/locks/watch/list/phase";

const watching: UpPhase = { kind: "watching", asOfMs: 1_000 };
const polling: UpPhase = { kind: "polling", asOfMs: 1_000 };
const starting: UpPhase = { kind: "listing", reason: "start", sinceMs: 0, asOfMs: null };
const relisting: UpPhase = { kind: "listing", reason: "overflow", sinceMs: 500, asOfMs: 1_000 };
const paused = (resume: UpPhase): WatchPhase => ({ kind: "down", cause: "unresponsive", resume });
const closed = (resume: UpPhase): WatchPhase => ({ kind: "down", cause: "disconnected", resume });
const gapAt = (reason: "reconnect" | "restart" | "overflow", sinceMs: number): UpPhase => ({
  kind: "listing",
  reason,
  sinceMs,
  asOfMs: 1_000,
});
const listed = (notificationsOn: boolean, subscribed: boolean): WatchEvent => ({
  type: "listed",
  notificationsOn,
  subscribed,
  startedAtMs: 2_000,
  endedAtMs: 3_000,
});

// prettier-ignore
const TABLE: ReadonlyArray<readonly [string, WatchPhase, WatchEvent, WatchPhase]> = [
  ["a new watch connects: the first listing is due", initialPhase(0), { type: "connected" }, starting],
  ["a dropped connection opens a gap", watching, { type: "disconnected", atMs: 5_000 }, closed(gapAt("reconnect", 5_000))],
  ["a dropped connection while paused opens a gap", paused(polling), { type: "disconnected", atMs: 5_000 }, closed(gapAt("reconnect", 5_000))],
  ["a dropped connection keeps an open gap's start", relisting, { type: "disconnected", atMs: 5_000 }, closed(relisting)],
  ["a second close changes nothing", closed(relisting), { type: "disconnected", atMs: 9_000 }, closed(relisting)],
  ["the connection back: the relist is due", closed(gapAt("reconnect", 5_000)), { type: "connected" }, gapAt("reconnect", 5_000)],
  ["ready again while only paused changes nothing", paused(watching), { type: "connected" }, paused(watching)],
  ["an unanswered PING: down, nothing lost", watching, { type: "unanswered" }, paused(watching)],
  ["an unanswered PING while disconnected changes nothing", closed(relisting), { type: "unanswered" }, closed(relisting)],
  ["the PING answered: back where it was, no relist", paused(watching), { type: "answered" }, watching],
  ["a PING answered while disconnected does not reconnect", closed(relisting), { type: "answered" }, closed(relisting)],
  ["a lost subscription opens a gap", watching, { type: "gap", reason: "reconnect", atMs: 5_000 }, gapAt("reconnect", 5_000)],
  ["an overflow opens a gap", watching, { type: "gap", reason: "overflow", atMs: 5_000 }, gapAt("overflow", 5_000)],
  ["flags lost since before the last heartbeat: a gap from then, the as-of no later", { kind: "watching", asOfMs: 6_000 }, { type: "gap", reason: "notifications", atMs: 5_000 }, { kind: "listing", reason: "notifications", sinceMs: 5_000, asOfMs: 5_000 }],
  ["a restart opens a gap while polling", polling, { type: "gap", reason: "restart", atMs: 5_000 }, gapAt("restart", 5_000)],
  ["a gap in an open gap keeps its start and reason", relisting, { type: "gap", reason: "restart", atMs: 9_000 }, relisting],
  ["a gap before the first listing ended keeps it a start", starting, { type: "gap", reason: "reconnect", atMs: 9_000 }, starting],
  ["a gap while paused is kept for the return", paused(watching), { type: "gap", reason: "overflow", atMs: 5_000 }, paused(gapAt("overflow", 5_000))],
  ["notifications found off: polled", watching, { type: "notificationsChecked", on: false }, polling],
  ["notifications found on: watched", polling, { type: "notificationsChecked", on: true }, watching],
  ["notifications during a gap: still listing", starting, { type: "notificationsChecked", on: true }, starting],
  ["listed while subscribed: watching as of the end", relisting, listed(true, true), { kind: "watching", asOfMs: 3_000 }],
  ["listed without notifications: polling as of the start", starting, listed(false, false), { kind: "polling", asOfMs: 2_000 }],
  ["a resync listed while watching: as of its end", watching, listed(true, true), { kind: "watching", asOfMs: 3_000 }],
  ["listed, subscription lost meanwhile: the gap stays", relisting, listed(true, false), relisting],
  ["first listed, subscription lost meanwhile: the gap stays, listed once", starting, listed(true, false), { ...starting, reason: "reconnect" }],
  ["listed while paused: resumes watching", paused(relisting), listed(true, true), paused({ kind: "watching", asOfMs: 3_000 })],
  ["a heartbeat moves a watching node's as-of on", watching, { type: "caughtUp", sentAtMs: 4_000 }, { kind: "watching", asOfMs: 4_000 }],
  ["an older heartbeat changes nothing", watching, { type: "caughtUp", sentAtMs: 900 }, watching],
  ["a heartbeat while listing changes nothing", relisting, { type: "caughtUp", sentAtMs: 4_000 }, relisting],
  ["a heartbeat while paused changes nothing", paused(watching), { type: "caughtUp", sentAtMs: 4_000 }, paused(watching)],
];

describe("the watch phase", () => {
  it.each(TABLE)("%s", (_name, from, event, to) => {
    expect(nextPhase(from, event)).toEqual(to);
  });

  it("returns the same phase when an event changes nothing", () => {
    const phase = paused(relisting);
    expect(nextPhase(phase, { type: "gap", reason: "overflow", atMs: 1 })).toBe(phase);
    expect(nextPhase(watching, { type: "connected" })).toBe(watching);
  });

  it("derives the mode, as-of, gap start and whether the node was ever listed", () => {
    expect(modeOf(paused(watching))).toBe("down");
    expect(modeOf(relisting)).toBe("listing");
    expect(asOfMsOf(closed(relisting))).toBe(1_000);
    expect(asOfMsOf(initialPhase(0))).toBeNull();
    expect(gapSinceMs(closed(relisting))).toBe(500);
    expect(gapSinceMs(watching)).toBeNull();
    expect(listedOnce(initialPhase(0))).toBe(false);
    expect(listedOnce(closed(gapAt("reconnect", 1)))).toBe(true);
  });
});
