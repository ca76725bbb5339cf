import "server-only";
/**
 * The console's own state store (CONSOLE_STATE_URL): a Redis the operator chooses, never one of the
 * lock nodes (open() refuses one whose run_id is a lock node's). Transitions are appended to one
 * stream (XADD … MAXLEN ~ history size), batched every FLUSH_INTERVAL_MS, and an as-of stream says
 * until when the console was watching, so a restarted console loads its history and records the
 * time it was away as a gap. What it loads is checked first (stored-entries.ts): the store is
 * trusted for history only as far as its own clock vouches. One console per store: two replicas
 * writing one store would each record every transition.
 */
import { Redis } from "ioredis";
import type { Transition } from "@/lib/api/timeline";
import { logger, redactText } from "../logger";
import { boundedAsOf, checkEntries, type CheckedHistory, type StreamEntry } from "./stored-entries";

export const TRANSITIONS_STREAM = "redlock-console:transitions";
/**
 * A one-entry stream, so that the as-of instant carries the store's own stamp (its entry id); the
 * string key of earlier versions (`redlock-console:transitions:as-of`) is no longer read.
 */
export const AS_OF_STREAM = "redlock-console:as-of";
const FLUSH_INTERVAL_MS = 200;
/** The as-of instant is written at most this often: a restart's gap is then at most this much wider. */
const AS_OF_INTERVAL_MS = 1_000;
/** A flush appends at most this many (a burst waits for the next flush). */
const FLUSH_MAX = 1_000;
/** Transitions buffered at most while the store does not answer; older ones are dropped. */
const BUFFER_MAX = 10_000;

/** The store is one of the lock nodes: refused, never read or written. */
export class StateStoreRefusedError extends Error {
  override name = "StateStoreRefusedError";
}

export interface LoadedHistory extends CheckedHistory {
  /** Until when a console watched (console clock), bounded by the store's stamp; null when unknown. */
  readonly asOfMs: number | null;
}

export interface StateStore {
  /**
   * Checks the store is none of the lock nodes (`lockRunIds`: theirs, null when unread), then lets
   * writes through; rejects with StateStoreRefusedError (and closes) when it is one.
   */
  open(lockRunIds: readonly (string | null)[]): Promise<void>;
  /** The stored transitions that pass the checks, oldest first, what was skipped, and the as-of. */
  load(limit: number): Promise<LoadedHistory>;
  append(transition: Transition): void;
  /** The console watched every node completely until now. */
  markAsOf(nowMs: number): void;
  close(): Promise<void>;
}

export function createStateStore(url: string, maxLen: number): StateStore {
  const client = new Redis(url, {
    connectionName: "redlock-console:state",
    maxRetriesPerRequest: 1,
    commandTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
  });
  let lastError = "";
  client.on("error", (error: Error) => {
    const message = redactText(error.message);
    if (message !== lastError) logger.warn({ error: message }, "state store error");
    lastError = message;
  });
  let buffer: Transition[] = [];
  let asOfMs: number | null = null;
  let asOfWrittenMs = 0;
  let flushing = false;
  /** Nothing is written before open() found the store is no lock node. */
  let opened = false;
  const flush = async () => {
    if (!opened || flushing || (buffer.length === 0 && asOfMs === null)) return;
    flushing = true;
    const batch = buffer.splice(0, FLUSH_MAX);
    const pipeline = client.pipeline();
    for (const transition of batch)
      pipeline.xadd(
        TRANSITIONS_STREAM,
        "MAXLEN",
        "~",
        maxLen,
        "*",
        "t",
        JSON.stringify(transition),
      );
    if (asOfMs !== null) pipeline.xadd(AS_OF_STREAM, "MAXLEN", "1", "*", "a", String(asOfMs));
    asOfMs = null;
    try {
      await pipeline.exec();
    } catch {
      // Kept for the next flush while the store is away, within BUFFER_MAX.
      buffer = [...batch, ...buffer].slice(-BUFFER_MAX);
    } finally {
      flushing = false;
    }
  };
  const timer = setInterval(() => void flush(), FLUSH_INTERVAL_MS);
  const close = async () => {
    clearInterval(timer);
    await flush();
    await client.quit().catch(() => client.disconnect());
  };
  return {
    async open(lockRunIds) {
      const runId = /run_id:(\w+)/.exec(await client.info("server"))?.[1] ?? null;
      if (runId !== null && lockRunIds.includes(runId)) {
        buffer = [];
        await close();
        throw new StateStoreRefusedError(
          `CONSOLE_STATE_URL is one of the lock nodes (same run_id ${runId}): the console's state must live on another Redis, so it never writes to a lock node nor trusts what a lock node's writers put there. The state store is off; history is kept in memory only. Point CONSOLE_STATE_URL at a Redis that is not in REDLOCK_NODES.`,
        );
      }
      opened = true;
    },
    async load(limit) {
      const [entries, asOf, time] = await Promise.all([
        client.xrevrange(TRANSITIONS_STREAM, "+", "-", "COUNT", limit),
        client.xrevrange(AS_OF_STREAM, "+", "-", "COUNT", 1),
        client.time(),
      ]);
      const storeNowMs = Number(time[0]) * 1_000 + Math.floor(Number(time[1]) / 1_000);
      const skewMs = Date.now() - storeNowMs;
      const oldestFirst = entries.reverse() as StreamEntry[];
      const checked = checkEntries(oldestFirst, storeNowMs, skewMs);
      return { ...checked, asOfMs: boundedAsOf(asOf[0] as StreamEntry, storeNowMs, skewMs) };
    },
    append(transition) {
      buffer.push(transition);
      if (buffer.length > BUFFER_MAX) buffer.splice(0, buffer.length - BUFFER_MAX);
    },
    markAsOf(nowMs) {
      if (nowMs - asOfWrittenMs < AS_OF_INTERVAL_MS) return;
      asOfWrittenMs = nowMs;
      asOfMs = nowMs;
    },
    close,
  };
}
