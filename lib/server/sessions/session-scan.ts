import "server-only";
/**
 * Finds sessions that hold nothing (an idle worker still beats) with `SCAN MATCH
 * redlock:session:{*}` on one server, under a small budget per call: each call advances one cursor a
 * few steps, and the ids found are remembered for a while, so the console's cost per request stays
 * bounded whatever the keyspace, and a whole round completes over successive calls. Heartbeats are
 * written on every node, so one server is enough: the first single node that is ready, else the
 * primaries of the first cluster node in turn.
 */
import type { Redis } from "ioredis";
import { DEFAULT_HEARTBEAT_MS, sessionKey, sessionWindowMs } from "@redlock-console/redlock";
import type { LiveIndex } from "../locks/rows/live-index";
import type { ConsoleNode } from "../node-registry";
import { withDeadline } from "../node-registry";
import { SESSION_ID } from "./session-keys";

/** SCAN calls per request, each of SCAN_COUNT keys: the per-request budget. */
const SCAN_CALLS_PER_REQUEST = 4;
const SCAN_COUNT = 1_000;
/** Ids remembered at most; the oldest found are forgotten first. */
const MAX_REMEMBERED = 10_000;
/** A session found this long ago and not found since is forgotten (its key would have expired). */
const REMEMBER_MS = 2 * sessionWindowMs(DEFAULT_HEARTBEAT_MS);
/** The session key's shape around its id (the library's sessionKey), to SCAN for and to take ids out of. */
const [KEY_HEAD, KEY_TAIL] = sessionKey("\0").split("\0") as [string, string];
const KEY_PATTERN = sessionKey("*");
const idOf = (key: string): string | null => {
  const id = key.slice(KEY_HEAD.length, key.length - KEY_TAIL.length);
  return key === `${KEY_HEAD}${id}${KEY_TAIL}` && SESSION_ID.test(id) ? id : null;
};

export interface SessionScan {
  /** Advances the scan by its budget; resolves with every session id remembered. */
  step(nowMs: number): Promise<{ ids: string[]; complete: boolean }>;
}

export function createSessionScan(
  nodes: readonly ConsoleNode[],
  index: LiveIndex,
  deadlineMs: number,
): SessionScan {
  const found = new Map<string, number>();
  /** When each server's last whole round started. */
  const rounds = new Map<Redis, number>();
  let server: Redis | null = null;
  let cursor = "0";
  let roundStartedAt = 0;

  /** The servers whose rounds together cover every session key. */
  const targets = (): Redis[] => {
    const single = nodes.find((node) => node.kind === "single" && node.client.status === "ready");
    if (single) return [single.client as Redis];
    const cluster = nodes.findIndex((node) => node.kind === "cluster");
    // A primary holds only its slots' sessions: each one's round is needed.
    return cluster === -1
      ? []
      : (index.clusterOf(cluster)?.primaries ?? []).map((primary) => primary.client);
  };
  const remember = (keys: readonly string[], nowMs: number) => {
    for (const key of keys) {
      const id = idOf(key);
      if (id === null) continue;
      found.delete(id);
      found.set(id, nowMs);
      if (found.size > MAX_REMEMBERED) found.delete(found.keys().next().value!);
    }
  };

  return {
    async step(nowMs) {
      const servers = targets();
      if (server === null || !servers.includes(server) || server.status !== "ready") {
        server = servers[0] ?? null;
        cursor = "0";
      }
      for (let call = 0; server && call < SCAN_CALLS_PER_REQUEST; call += 1) {
        if (cursor === "0") roundStartedAt = nowMs;
        try {
          const [next, keys] = await withDeadline(
            server.scan(cursor, "MATCH", KEY_PATTERN, "COUNT", SCAN_COUNT),
            deadlineMs,
          );
          remember(keys, nowMs);
          cursor = next;
        } catch {
          server = null;
          break;
        }
        if (cursor === "0") {
          rounds.set(server, roundStartedAt);
          // The next server's round (the same one again for a single node).
          server = servers[(servers.indexOf(server) + 1) % servers.length]!;
          break;
        }
      }
      for (const [id, at] of found) if (nowMs - at > REMEMBER_MS) found.delete(id);
      const recent = (target: Redis) => nowMs - (rounds.get(target) ?? -Infinity) <= REMEMBER_MS;
      return { ids: [...found.keys()], complete: servers.length > 0 && servers.every(recent) };
    },
  };
}
