import "server-only";
/**
 * The console's own state store (CONSOLE_STATE_URL): a Redis the operator chooses, never one of the
 * lock nodes. Transitions are appended to one stream (XADD … MAXLEN ~ history size), batched every
 * FLUSH_INTERVAL_MS, and an as-of key says until when the console was watching, so a restarted
 * console loads its history and records the time it was away as a gap. One console per store: two
 * replicas writing one store would each record every transition.
 */
import { Redis } from "ioredis";
import { transitionSchema, type Transition } from "@/lib/api/timeline";
import { logger, redactText } from "../logger";

export const TRANSITIONS_STREAM = "redlock-console:transitions";
export const AS_OF_KEY = "redlock-console:transitions:as-of";
const FLUSH_INTERVAL_MS = 200;
/** The as-of instant is written at most this often: a restart's gap is then at most this much wider. */
const AS_OF_INTERVAL_MS = 1_000;
/** A flush appends at most this many (a burst waits for the next flush). */
const FLUSH_MAX = 1_000;
/** Transitions buffered at most while the store does not answer; older ones are dropped. */
const BUFFER_MAX = 10_000;

export interface StateStore {
  /** The stored transitions, oldest first, and the last as-of instant (null when none). */
  load(limit: number): Promise<{ transitions: Transition[]; asOfMs: number | null }>;
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
  const flush = async () => {
    if (flushing || (buffer.length === 0 && asOfMs === null)) return;
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
    if (asOfMs !== null) pipeline.set(AS_OF_KEY, String(asOfMs));
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
  return {
    async load(limit) {
      const [entries, asOf] = await Promise.all([
        client.xrevrange(TRANSITIONS_STREAM, "+", "-", "COUNT", limit),
        client.get(AS_OF_KEY),
      ]);
      const transitions: Transition[] = [];
      for (const [, fields] of entries.reverse()) {
        const text = fields[fields.indexOf("t") + 1];
        try {
          const parsed = transitionSchema.safeParse(JSON.parse(text ?? ""));
          if (parsed.success) transitions.push(parsed.data);
        } catch {
          // A garbled entry is skipped, not fatal: the history is advisory.
        }
      }
      return { transitions, asOfMs: asOf === null ? null : Number(asOf) || null };
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
    async close() {
      clearInterval(timer);
      await flush();
      await client.quit().catch(() => client.disconnect());
    },
  };
}
