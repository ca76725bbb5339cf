import "server-only";
/**
 * `GET /api/sessions` and `GET /api/sessions/{id}`: every live holder session, found from the live
 * index's rows (the sessions their values name, kept by session-holdings.ts), the waiters lists of
 * waited-for resources, and a bounded rolling SCAN for sessions that hold nothing; each with its
 * liveness read from the nodes (read-session.ts, one batch for all of them), its locks and its
 * waits. One read serves every viewer for maxAgeMs: the list, each session, and the waiters lists
 * (read once for all sessions), so the masters' cost does not grow with viewers nor with requests.
 */
import {
  LIST_VALUE_MAX_CHARS,
  MAX_SESSION_LOCKS_LISTED,
  MAX_SESSION_WAITS_LISTED,
  MAX_SESSIONS_LISTED,
  type HolderSessionResponse,
  type HolderSessionSummary,
  type HolderSessionsCoverage,
  type HolderSessionsResponse,
} from "@/lib/api";
import { ApiError } from "../errors";
import { describeLatin1Key } from "../locks/read/key-name";
import type { LiveIndex } from "../locks/rows/live-index";
import type { ConsoleNode } from "../node-registry";
import { keyedSingleFlight, singleFlight } from "../single-flight";
import { waitsBySession, type Waiting } from "./holdings";
import { deriveLiveness, type SessionReading } from "./liveness";
import { readSessions } from "./read-session";
import { createSessionScan } from "./session-scan";
import type { SessionHoldings } from "./session-holdings";
import { parseHeartbeat } from "./session-keys";

export interface SessionDirectoryOptions {
  readonly nodes: readonly ConsoleNode[];
  readonly index: LiveIndex;
  /** Which session holds which locks (the index's handler). */
  readonly holdings: Pick<
    SessionHoldings,
    "caughtUp" | "holdingsOf" | "heldCount" | "sessions" | "waitedKeys"
  >;
  /** Budget of one node's read, in ms. */
  readonly deadlineMs: number;
  /** How long one read serves every viewer. */
  readonly maxAgeMs: number;
}

export interface SessionDirectory {
  list(): Promise<HolderSessionsResponse>;
  /** 404 not_found when no node knows the session and it holds and waits for nothing. */
  get(sessionId: string): Promise<HolderSessionResponse>;
}

interface Found {
  readonly waits: Map<string, Waiting[]>;
  readonly scanned: readonly string[];
  readonly coverage: HolderSessionsCoverage;
}

export function createSessionDirectory(options: SessionDirectoryOptions): SessionDirectory {
  const { nodes, index, holdings, deadlineMs, maxAgeMs } = options;
  const scan = createSessionScan(nodes, index, deadlineMs);
  // One read of the waiters lists serves the list and every session for maxAgeMs.
  const waitsNow = singleFlight(async () => {
    const nowMs = Date.now();
    index.sweep(nowMs);
    await holdings.caughtUp();
    return waitsBySession(index, holdings, nodes, deadlineMs, nowMs);
  }, maxAgeMs);

  /** What the index, the waiters lists and (for the list) the SCAN show. */
  const find = async (nowMs: number, withScan: boolean): Promise<Found> => {
    index.sweep(nowMs);
    const [waits, scanned] = await Promise.all([
      waitsNow(),
      withScan ? scan.step(nowMs) : { ids: [], complete: false },
      holdings.caughtUp(),
    ]);
    return {
      waits: waits.waits,
      scanned: scanned.ids,
      coverage: {
        indexComplete: index.complete,
        scanComplete: scanned.complete,
        waitListsRead: waits.read,
        waitListsSkipped: waits.skipped,
      },
    };
  };

  const summary = (
    id: string,
    readings: readonly SessionReading[],
    found: Found,
    nowMs: number,
  ): HolderSessionSummary | null => {
    const waits = found.waits.get(id) ?? [];
    const beats = readings.some((reading) => reading.answered && reading.sessionValue !== null);
    if (holdings.heldCount(id) === 0 && waits.length === 0 && !beats) return null;
    const held = holdings.holdingsOf(id);
    const liveness = deriveLiveness(id, readings, nowMs);
    const heartbeat = readings
      .map((reading) => (reading.sessionValue ? parseHeartbeat(reading.sessionValue) : null))
      .find((parsed) => parsed !== null);
    return {
      id,
      ...liveness,
      startedAt: heartbeat?.startedAt ?? null,
      locks: held.slice(0, MAX_SESSION_LOCKS_LISTED).flatMap(({ key }) => {
        const row = index.row(key, nowMs);
        if (!row?.value) return [];
        return [
          {
            ...describeLatin1Key(key),
            state: row.state,
            value: row.value.slice(0, LIST_VALUE_MAX_CHARS),
            validityMs: row.validityMs,
          },
        ];
      }),
      locksTotal: held.length,
      waits: waits.slice(0, MAX_SESSION_WAITS_LISTED).map(({ key, ...wait }) => ({
        ...describeLatin1Key(key),
        ...wait,
      })),
    };
  };

  const list = singleFlight(async (): Promise<HolderSessionsResponse> => {
    const nowMs = Date.now();
    const found = await find(nowMs, true);
    // Sessions holding the most first: those are what an operator looks for.
    const ids = [...new Set([...holdings.sessions(), ...found.waits.keys(), ...found.scanned])];
    const held = (id: string) => holdings.heldCount(id);
    ids.sort((a, b) => held(b) - held(a) || (a < b ? -1 : 1));
    const listed = ids.slice(0, MAX_SESSIONS_LISTED);
    const readings = await readSessions(nodes, listed, deadlineMs);
    const serverTime = Date.now();
    return {
      serverTime,
      sessions: listed.flatMap((id, at) => summary(id, readings[at]!, found, serverTime) ?? []),
      truncated: ids.length > listed.length,
      coverage: found.coverage,
    };
  }, maxAgeMs);

  const one = async (sessionId: string): Promise<HolderSessionResponse> => {
    const found = await find(Date.now(), false);
    const [readings] = await readSessions(nodes, [sessionId], deadlineMs);
    const serverTime = Date.now();
    const session = summary(sessionId, readings!, found, serverTime);
    if (!session)
      throw new ApiError(
        "not_found",
        `No holder session ${sessionId}: no node has its heartbeat, and it holds and waits for nothing.`,
      );
    return { serverTime, session, coverage: found.coverage };
  };
  const shared = keyedSingleFlight<HolderSessionResponse>(maxAgeMs);

  return { list, get: (sessionId) => shared(sessionId, () => one(sessionId)) };
}
