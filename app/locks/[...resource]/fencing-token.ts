import type { AuditEntry } from "@/lib/api/audit";

/**
 * The fencing token of the current holder, when the console handed it out: the snapshot only sees
 * lock values, but the audit entry of the acquire records the token it returned.
 */
export function fencingTokenFromAudit(entries: readonly AuditEntry[], value: string | null): number | null {
  if (value === null) return null;
  const acquired = entries.find((entry) => entry.action === "acquire" && entry.outcome === "success" && entry.value === value);
  const match = acquired ? /fencing token (\d+)/.exec(acquired.detail) : null;
  return match ? Number(match[1]) : null;
}
