import "server-only";
/**
 * The console's own state store (CONSOLE_STATE_URL): a Redis the operator chooses, never one of the
 * lock nodes (open() refuses one whose run_id is a lock node's). Transitions live in one stream
 * (XADD … MAXLEN ~ history size), and an as-of stream says until when a console was watching, so a
 * restarted console loads its history and records the time it was away as a gap. What it loads is
 * checked first (stored-entries.ts): the store is trusted for history only as far as its own clock
 * vouches. Replicas share the store: one writer at a time appends (fenced by its lease), every
 * replica follows the stream (lib/server/replicas/shared-history.ts).
 */
import { Redis } from "ioredis";
import { logger, redactText } from "../logger";
import { boundedAsOf, checkEntries, type CheckedHistory, type StreamEntry } from "./stored-entries";

export const TRANSITIONS_STREAM = "redlock-console:transitions";
/**
 * A one-entry stream, so that the as-of instant carries the store's own stamp (its entry id); the
 * string key of earlier versions (`redlock-console:transitions:as-of`) is no longer read.
 */
export const AS_OF_STREAM = "redlock-console:as-of";
/** The store is one of the lock nodes: refused, never read or written. */
export class StateStoreRefusedError extends Error {
  override name = "StateStoreRefusedError";
}

export interface LoadedHistory extends CheckedHistory {
  /** Until when a console watched (console clock), bounded by the store's stamp; null when unknown. */
  readonly asOfMs: number | null;
  /** Where following the streams resumes: the last entry id of each ("0-0" when empty). */
  readonly resumeFrom: { readonly transitions: string; readonly asOf: string };
  /** Console clock minus store clock, measured at load. */
  readonly skewMs: number;
}

export interface StateStore {
  /**
   * Checks the store is none of the lock nodes (`lockRunIds`: theirs, null when unread), then lets
   * writes through; rejects with StateStoreRefusedError (and closes) when it is one.
   */
  open(lockRunIds: readonly (string | null)[]): Promise<void>;
  /** The stored transitions that pass the checks, oldest first, what was skipped, and the as-of. */
  load(limit: number): Promise<LoadedHistory>;
  /** The store's client, for the replicas' lease and shared history (after open()). */
  readonly client: Redis;
  close(): Promise<void>;
}

export function createStateStore(url: string): StateStore {
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
  const close = async () => {
    await client.quit().catch(() => client.disconnect());
  };
  return {
    async open(lockRunIds) {
      const runId = /run_id:(\w+)/.exec(await client.info("server"))?.[1] ?? null;
      if (runId !== null && lockRunIds.includes(runId)) {
        await close();
        throw new StateStoreRefusedError(
          `CONSOLE_STATE_URL is one of the lock nodes (same run_id ${runId}): the console's state must live on another Redis, so it never writes to a lock node nor trusts what a lock node's writers put there. The state store is off; history is kept in memory only. Point CONSOLE_STATE_URL at a Redis that is not in REDLOCK_NODES.`,
        );
      }
    },
    async load(limit) {
      const [entries, asOf, time] = await Promise.all([
        client.xrevrange(TRANSITIONS_STREAM, "+", "-", "COUNT", limit),
        client.xrevrange(AS_OF_STREAM, "+", "-", "COUNT", 1),
        client.time(),
      ]);
      const storeNowMs = Number(time[0]) * 1_000 + Math.floor(Number(time[1]) / 1_000);
      const skewMs = Date.now() - storeNowMs;
      const resumeFrom = { transitions: entries[0]?.[0] ?? "0-0", asOf: asOf[0]?.[0] ?? "0-0" };
      const oldestFirst = entries.reverse() as StreamEntry[];
      const checked = checkEntries(oldestFirst, storeNowMs, skewMs);
      const asOfMs = boundedAsOf(asOf[0] as StreamEntry, storeNowMs, skewMs);
      return { ...checked, asOfMs, resumeFrom, skewMs };
    },
    client,
    close,
  };
}
