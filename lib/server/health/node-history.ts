import "server-only";
/**
 * What one read of a node cannot know alone, kept across node reports, per single-server node:
 * - the last error its connection met (the cause of a down node: down-cause.ts),
 * - since when it is down: its connection closing, or else the first read that failed,
 * - the run_id it last answered with, so a restart (a new run_id) is seen however quickly the
 *   process came back; the run_id is also read on every reconnection, so a restart between two
 *   reports (nobody watching) is caught at the next one.
 * Cluster nodes are left to their shards' own reports.
 */
import type { Redis } from "ioredis";
import type { ConsoleNode } from "../node-registry";
import { downCauseOf, type ConnectionFault, type DownCause } from "./down-cause";

/** A restart seen: when the new process started, and whether it came back without keys. */
export interface RestartSeen {
  readonly atMs: number;
  readonly emptyKeyspace: boolean | null;
}

export interface DownState {
  readonly sinceMs: number;
  readonly cause: DownCause;
}

/** What INFO (server and persistence sections) says of the process answering now. */
export interface ProcessInfo {
  readonly runId: string | undefined;
  readonly uptimeS: number;
  readonly emptyKeyspace: boolean | null;
}

interface Memory {
  client: Redis | null;
  fault: ConnectionFault | null;
  /** When the connection last closed since it was ready (epoch ms). */
  lostAtMs: number | null;
  down: DownState | null;
  runId: string | null;
  restart: RestartSeen | null;
}

export interface NodeHistory {
  /** A read of node `index` failed with `error`: since when it is down, and why. */
  markDown(index: number, error: unknown, nowMs: number): DownState;
  /** A read of node `index` succeeded: it is up, and answered as `process`. */
  markUp(index: number, process: ProcessInfo, nowMs: number): void;
  /** The node's last restart the console saw, if any. */
  restartOf(index: number): RestartSeen | null;
}

/** From INFO's fields: no AOF and no key loaded from an RDB means a restart came back empty. */
export function processInfoOf(info: Record<string, string>): ProcessInfo {
  const loaded = info.rdb_last_load_keys_loaded;
  const emptyKeyspace =
    info.aof_enabled === "1" || (loaded !== undefined && loaded !== "0")
      ? false
      : info.aof_enabled === "0" && loaded === "0"
        ? true
        : null;
  return { runId: info.run_id, uptimeS: Number(info.uptime_in_seconds ?? 0), emptyKeyspace };
}

function parseInfo(text: string): Record<string, string> {
  return Object.fromEntries(
    text.split(/\r?\n/).flatMap((line) => {
      const colon = line.indexOf(":");
      return colon > 0 ? [[line.slice(0, colon), line.slice(colon + 1).trim()]] : [];
    }),
  );
}

export function createNodeHistory(nodes: readonly ConsoleNode[], deadlineMs: number): NodeHistory {
  const memories: Memory[] = nodes.map((node) => ({
    client: node.kind === "single" ? node.client : null,
    fault: null,
    lostAtMs: null,
    down: null,
    runId: null,
    restart: null,
  }));

  const observe = (memory: Memory, process: ProcessInfo, nowMs: number) => {
    if (process.runId === undefined) return;
    if (memory.runId !== null && memory.runId !== process.runId) {
      memory.restart = {
        atMs: nowMs - process.uptimeS * 1_000,
        emptyKeyspace: process.emptyKeyspace,
      };
    }
    memory.runId = process.runId;
  };

  memories.forEach((memory) => {
    const client = memory.client;
    if (!client) return;
    client.on("error", (error: Error & { code?: string }) => {
      memory.fault = { code: error.code, message: error.message };
    });
    client.on("close", () => {
      memory.lostAtMs ??= Date.now();
    });
    const readProcess = () => {
      // Once per connection: learns the run_id even when no report runs before a restart.
      client.info().then(
        (text) => observe(memory, processInfoOf(parseInfo(text)), Date.now()),
        () => undefined,
      );
    };
    client.on("ready", () => {
      memory.fault = null;
      memory.lostAtMs = null;
      readProcess();
    });
    if (client.status === "ready") readProcess();
  });

  return {
    markDown(index, error, nowMs) {
      const memory = memories[index]!;
      const node = nodes[index]!;
      const cause = downCauseOf({
        error,
        clientStatus: node.client.status,
        fault: memory.fault,
        address: node.address,
        deadlineMs,
      });
      const sinceMs = memory.down?.sinceMs ?? Math.min(nowMs, memory.lostAtMs ?? nowMs);
      memory.down = { sinceMs, cause };
      return memory.down;
    },
    markUp(index, process, nowMs) {
      const memory = memories[index]!;
      memory.down = null;
      observe(memory, process, nowMs);
    },
    restartOf: (index) => memories[index]!.restart,
  };
}
