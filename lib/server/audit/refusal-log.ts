import "server-only";
/**
 * The refusal log: refused state-changing requests (400, 401, 403, 404, 409, 429: nothing written)
 * and wrong credentials, in their own stream `redlock:audit:refusals` with its own length cap, so
 * that a subject who floods refusals fills only this log, never evicting the actions trail (issue
 * 49). Refusals are summed in memory per who × what × why and flushed every `flushMs` as one
 * entry per group (count, first and last time): a flood of ten thousand is a handful of entries. A
 * console that crashes loses at most its last `flushMs` of refusals (it flushes on close). At most
 * MAX_REFUSAL_GROUPS groups are kept apart per window; past that, refusals are summed per action
 * and code under one overflow group, so memory stays bounded too.
 */
import { randomUUID } from "node:crypto";
import { auditRefusalSchema, type AuditRefusal } from "@/lib/api";
import { logger } from "../logger";
import type { AuditStream } from "./audit-search";
import {
  appendEverywhere,
  sharedReads,
  type AuditRead,
  type AuditReadResult,
  type AuditStreamSettings,
} from "./audit-trail";

export const REFUSAL_STREAM = "redlock:audit:refusals";
/** Distinct groups kept apart per flush window. */
export const MAX_REFUSAL_GROUPS = 1_000;

/** One refused request, as its route or the credential check saw it. */
export type Refusal = Omit<AuditRefusal, "id" | "at" | "firstAt" | "lastAt" | "count" | "nodes">;

export interface RefusalLog {
  /** Counts one refusal; written at the next flush. */
  record(refusal: Refusal): void;
  /** Writes the window's groups now (the timer and close call it). */
  flush(): Promise<void>;
  /** As AuditTrail.read, of this log. */
  read(limit: number, read?: AuditRead): Promise<AuditReadResult<AuditRefusal>>;
  close(): Promise<void>;
}

type Group = Omit<AuditRefusal, "id" | "at" | "nodes">;

const REFUSALS: AuditStream<AuditRefusal> = {
  name: REFUSAL_STREAM,
  parse(fields) {
    const json = fields[fields.indexOf("refusal") + 1];
    try {
      const parsed = auditRefusalSchema.safeParse({ ...JSON.parse(json ?? ""), nodes: [] });
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  },
};

const groupKeyOf = (refusal: Refusal): string =>
  JSON.stringify([
    refusal.action,
    refusal.code,
    refusal.actor,
    refusal.person?.subject ?? null,
    refusal.credential,
    refusal.tokenName,
    refusal.clientIp,
    refusal.resources,
  ]);

const overflowOf = (refusal: Refusal, flushMs: number): Refusal => ({
  ...refusal,
  actor: "(many: more refusers than kept apart)",
  person: null,
  credential: null,
  tokenName: null,
  clientIp: "(many)",
  userAgent: "",
  resources: [],
  detail: `more than ${MAX_REFUSAL_GROUPS} distinct refusals in ${flushMs} ms: the rest summed here per action and code`,
});

export function createRefusalLog(settings: AuditStreamSettings, flushMs: number): RefusalLog {
  let groups = new Map<string, Group>();
  const reads = sharedReads(settings, REFUSALS, "CONSOLE_AUDIT_REFUSALS_MAXLEN");
  const add = (key: string, refusal: Refusal, nowMs: number) => {
    const known = groups.get(key);
    if (known) {
      known.count += 1;
      known.lastAt = nowMs;
    } else groups.set(key, { ...refusal, firstAt: nowMs, lastAt: nowMs, count: 1 });
  };
  const flush = async () => {
    if (groups.size === 0) return;
    const window = [...groups.values()];
    groups = new Map();
    await Promise.all(
      window.map(async (group) => {
        const id = randomUUID();
        const fields = ["id", id, "refusal", JSON.stringify({ ...group, id, at: group.lastAt })];
        const written = await appendEverywhere(settings, REFUSAL_STREAM, fields);
        if (written.length === 0)
          logger.error({ refusal: group }, "refusal not audited on any node");
      }),
    );
    reads.invalidate();
  };
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();
  return {
    record(refusal) {
      const nowMs = Date.now();
      const key = groupKeyOf(refusal);
      if (groups.has(key) || groups.size < MAX_REFUSAL_GROUPS) add(key, refusal, nowMs);
      else add(JSON.stringify([refusal.action, refusal.code]), overflowOf(refusal, flushMs), nowMs);
    },
    flush,
    read: reads.read,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
