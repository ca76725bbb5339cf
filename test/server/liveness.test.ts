/**
 * The liveness rule of docs/holder-sessions.md as a table of cases (no Redis): five nodes, a 1 s
 * heartbeat (LATE_AFTER 3 s, SESSION_WINDOW 60 s), servers seen with `timeout 0` and serving the
 * session key for an hour before each read unless a case says otherwise. Every doubt must read as
 * "unresponsive", never as "gone".
 */
import { describe, expect, it } from "vitest";
import { deriveLiveness, nextSince, type SessionReading } from "@/lib/server/sessions/liveness";

const ID = "0123456789abcdef0123456789abcdef";
const NOW = 1_700_000_000_000;
const WINDOW_MS = 60_000;
const UP_LONG = 3_600;
/** Observed `timeout 0` and the same server for the key this long before the read. */
const WATCHED_LONG_MS = 3_600_000;
const heartbeat = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    v: 1,
    labels: { service: "billing", pid: "42" },
    startedAt: NOW - 3_600_000,
    heartbeatMs: 1_000,
    clientId: 7,
    ...fields,
  });

/** A node whose heartbeat was written `ageMs` ago. */
const seen = (ageMs: number, more: Partial<SessionReading> = {}): SessionReading => ({
  answered: true,
  uptimeS: UP_LONG,
  timeoutZeroForMs: WATCHED_LONG_MS,
  keyServerForMs: WATCHED_LONG_MS,
  sessionValue: heartbeat(),
  pttlMs: WINDOW_MS - ageMs,
  clientConnected: true,
  ...more,
});
const fresh = seen(200);
const lateOpen = seen(10_000);
const lateClosed = seen(10_000, { clientConnected: false });
const missing: SessionReading = {
  answered: true,
  uptimeS: UP_LONG,
  timeoutZeroForMs: WATCHED_LONG_MS,
  keyServerForMs: WATCHED_LONG_MS,
  sessionValue: null,
  pttlMs: -2,
  clientConnected: null,
};
const silent: SessionReading = {
  answered: false,
  uptimeS: null,
  timeoutZeroForMs: null,
  keyServerForMs: null,
  sessionValue: null,
  pttlMs: -2,
  clientConnected: null,
};
const times = (count: number, reading: SessionReading) =>
  Array<SessionReading>(count).fill(reading);

describe("holder-session liveness", () => {
  it.each<[string, SessionReading[], string]>([
    ["fresh everywhere", times(5, fresh), "alive"],
    [
      "fresh on a bare majority, the rest silent",
      [...times(3, fresh), ...times(2, silent)],
      "alive",
    ],
    [
      "fresh on two of five: not a majority",
      [...times(2, fresh), ...times(3, lateOpen)],
      "unresponsive",
    ],
    ["late everywhere, connections open (SIGSTOP, GC pause)", times(5, lateOpen), "unresponsive"],
    [
      "late and connection closed on a majority (SIGKILL)",
      [...times(3, lateClosed), ...times(2, lateOpen)],
      "gone",
    ],
    [
      "late and closed on two only",
      [...times(2, lateClosed), ...times(3, lateOpen)],
      "unresponsive",
    ],
    [
      "keys missing everywhere: late, but nothing proves the connection closed",
      times(5, missing),
      "unresponsive",
    ],
    [
      "closed on two, missing on three: missing keys do not count toward gone",
      [...times(2, lateClosed), ...times(3, missing)],
      "unresponsive",
    ],
    [
      "late and closed on a majority, but the connection state unknown on one of them",
      [...times(2, lateClosed), seen(10_000, { clientConnected: null }), ...times(2, silent)],
      "unresponsive",
    ],
    ["every node silent", times(5, silent), "unresponsive"],
    [
      "late and closed, but three nodes restarted within the window",
      [...times(3, seen(10_000, { clientConnected: false, uptimeS: 30 })), ...times(2, lateClosed)],
      "unresponsive",
    ],
    [
      "late and closed, uptime unknown on a majority",
      [
        ...times(3, seen(10_000, { clientConnected: false, uptimeS: null })),
        ...times(2, lateClosed),
      ],
      "unresponsive",
    ],
    [
      "late and closed on a majority, but those servers close idle clients (timeout 1): a paused holder's connection closes too",
      [
        ...times(3, seen(10_000, { clientConnected: false, timeoutZeroForMs: null })),
        ...times(2, lateOpen),
      ],
      "unresponsive",
    ],
    [
      "late and closed everywhere, idle timeout 300 s on three",
      [
        ...times(3, seen(10_000, { clientConnected: false, timeoutZeroForMs: null })),
        ...times(2, lateClosed),
      ],
      "unresponsive",
    ],
    [
      "late and closed everywhere, the idle timeout unknown on three (CONFIG refused or renamed)",
      [
        ...times(3, seen(10_000, { clientConnected: false, timeoutZeroForMs: null })),
        ...times(2, lateClosed),
      ],
      "unresponsive",
    ],
    [
      "late and closed everywhere, an idle timeout on two: a majority still proves it",
      [
        ...times(2, seen(10_000, { clientConnected: false, timeoutZeroForMs: null })),
        ...times(3, lateClosed),
      ],
      "gone",
    ],
    // Issue 39: one fresh heartbeat anywhere rules "gone" out (a holder behind proxies to three
    // masters that restart keeps heartbeating on the other two).
    [
      "late and closed on three, fresh on two: the holder runs, cut off from three",
      [...times(3, lateClosed), ...times(2, fresh)],
      "unresponsive",
    ],
    ["late and closed on four, fresh on one", [...times(4, lateClosed), fresh], "unresponsive"],
    [
      "late and closed on three, one fresh heartbeat on a node whose connection is closed too",
      [...times(3, lateClosed), seen(200, { clientConnected: false }), silent],
      "unresponsive",
    ],
    // Issue 39: `timeout` must have been 0 all along since the heartbeat was written.
    [
      "timeout seen 0 only for the last 9 s of a 10 s old heartbeat on three (it was non-zero before)",
      [
        ...times(3, seen(10_000, { clientConnected: false, timeoutZeroForMs: 9_000 })),
        ...times(2, lateClosed),
      ],
      "unresponsive",
    ],
    [
      "timeout seen 0 since exactly when the heartbeat was written",
      [
        ...times(3, seen(10_000, { clientConnected: false, timeoutZeroForMs: 10_000 })),
        ...times(2, lateOpen),
      ],
      "gone",
    ],
    // Issue 39: a failover of the session key's shard since the heartbeat proves nothing: the
    // replicated heartbeat names a connection of the old primary.
    [
      "the primary serving the key changed 2 s ago on three, the heartbeat is 10 s old",
      [
        ...times(3, seen(10_000, { clientConnected: false, keyServerForMs: 2_000 })),
        ...times(2, lateClosed),
      ],
      "unresponsive",
    ],
    [
      "single nodes whose console connection came back 2 s ago (a restart may have come between)",
      [
        ...times(
          3,
          seen(10_000, { clientConnected: false, keyServerForMs: 2_000, timeoutZeroForMs: 2_000 }),
        ),
        ...times(2, lateClosed),
      ],
      "unresponsive",
    ],
    [
      "which primary serves the key is unknown on three",
      [
        ...times(3, seen(10_000, { clientConnected: false, keyServerForMs: null })),
        ...times(2, lateClosed),
      ],
      "unresponsive",
    ],
    [
      "the same primary since before the heartbeat (11 s for a 10 s old one)",
      [
        ...times(3, seen(10_000, { clientConnected: false, keyServerForMs: 11_000 })),
        ...times(2, lateOpen),
      ],
      "gone",
    ],
    [
      "late and closed on a majority of all nodes, the others silent",
      [...times(3, lateClosed), ...times(2, silent)],
      "gone",
    ],
    ["just under LATE_AFTER: still fresh", times(5, seen(2_999)), "alive"],
    ["just over LATE_AFTER, connections open", times(5, seen(3_001)), "unresponsive"],
    [
      "a key without TTL has no age: neither fresh nor late",
      times(5, seen(0, { pttlMs: -1, clientConnected: false })),
      "unresponsive",
    ],
    [
      "a value that is no heartbeat",
      times(5, seen(10_000, { sessionValue: "garbage", clientConnected: false })),
      "unresponsive",
    ],
    [
      "a heartbeat without clientId cannot prove a closed connection",
      times(
        5,
        seen(10_000, { sessionValue: heartbeat({ clientId: undefined }), clientConnected: false }),
      ),
      "unresponsive",
    ],
  ])("%s: %s", (_name, readings, state) => {
    expect(deriveLiveness(ID, readings, NOW).state).toBe(state);
  });

  it.each<[string, number | null, boolean, number | null]>([
    ["starts holding", null, true, NOW],
    ["keeps holding: the first time stays", NOW - 5_000, true, NOW - 5_000],
    ["stops holding (a non-zero timeout, a failed read)", NOW - 5_000, false, null],
    ["does not hold, still", null, false, null],
  ])("since when a condition held, after one more read: %s", (_name, since, holds, after) => {
    expect(nextSince(since, holds, NOW)).toBe(after);
  });

  it("is unknown without a session id, whatever the nodes say", () => {
    expect(deriveLiveness(null, times(5, fresh), NOW)).toEqual({
      state: "unknown",
      lastSeenAt: null,
      labels: {},
    });
  });

  it("takes lastSeenAt from the freshest heartbeat among answering nodes, on the console's clock", () => {
    const liveness = deriveLiveness(
      ID,
      [seen(5_000), seen(1_200), silent, missing, seen(800, { answered: false })],
      NOW,
    );
    expect(liveness.lastSeenAt).toBe(NOW - 1_200);
    expect(liveness.labels).toEqual({ service: "billing", pid: "42" });
    expect(deriveLiveness(ID, times(5, missing), NOW)).toMatchObject({
      lastSeenAt: null,
      labels: {},
    });
  });

  it("derives LATE_AFTER and the window from the heartbeat's own period", () => {
    // heartbeatMs 5 s: LATE_AFTER 15 s, SESSION_WINDOW 300 s.
    const slow = (ageMs: number, more: Partial<SessionReading> = {}) =>
      seen(0, {
        sessionValue: heartbeat({ heartbeatMs: 5_000 }),
        pttlMs: 300_000 - ageMs,
        ...more,
      });
    expect(deriveLiveness(ID, times(5, slow(10_000)), NOW).state).toBe("alive");
    expect(deriveLiveness(ID, times(5, slow(20_000, { clientConnected: false })), NOW).state).toBe(
      "gone",
    );
    // Up 200 s: longer than the default window, shorter than this session's: not counted.
    expect(
      deriveLiveness(ID, times(5, slow(20_000, { clientConnected: false, uptimeS: 200 })), NOW)
        .state,
    ).toBe("unresponsive");
  });

  it("has no 60 s floor: a 100 ms heartbeat is late after 300 ms, and its window is 6 s", () => {
    const quick = (ageMs: number, more: Partial<SessionReading> = {}) =>
      seen(0, {
        sessionValue: heartbeat({ heartbeatMs: 100 }),
        pttlMs: 6_000 - ageMs,
        ...more,
      });
    expect(deriveLiveness(ID, times(5, quick(250)), NOW).state).toBe("alive");
    expect(deriveLiveness(ID, times(5, quick(350)), NOW).state).toBe("unresponsive");
    const closed = { clientConnected: false };
    // Servers up 7 s: longer than this session's window, so they count.
    expect(deriveLiveness(ID, times(5, quick(1_000, { ...closed, uptimeS: 7 })), NOW).state).toBe(
      "gone",
    );
    // Up 5 s: a key written before a restart 5 s ago might still be there.
    expect(deriveLiveness(ID, times(5, quick(1_000, { ...closed, uptimeS: 5 })), NOW).state).toBe(
      "unresponsive",
    );
    // A node without the key says nothing of the period: the others' heartbeats name it.
    expect(
      deriveLiveness(
        ID,
        [...times(3, quick(1_000, { ...closed, uptimeS: 7 })), missing, missing],
        NOW,
      ).state,
    ).toBe("gone");
  });
});
