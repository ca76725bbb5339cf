/** Audit entries <-> flat stream field lists. Reading validates, so a foreign or corrupt entry is skipped. */
import { auditEntrySchema, type AuditEntry } from "@/lib/api";

export function toStreamFields(entry: AuditEntry): string[] {
  return [
    "id",
    entry.id,
    "at",
    String(entry.at),
    "action",
    entry.action,
    "actor",
    entry.actor,
    "clientIp",
    entry.clientIp,
    "userAgent",
    entry.userAgent,
    "resources",
    JSON.stringify(entry.resources),
    "value",
    entry.value ?? "",
    "reason",
    entry.reason ?? "",
    "outcome",
    entry.outcome,
    "detail",
    entry.detail,
  ];
}

export function fromStreamFields(fields: readonly string[]): AuditEntry | null {
  const map: Record<string, string> = {};
  for (let index = 0; index + 1 < fields.length; index += 2)
    map[fields[index]!] = fields[index + 1]!;
  let resources: unknown;
  try {
    resources = JSON.parse(map.resources ?? "[]");
  } catch {
    return null;
  }
  const parsed = auditEntrySchema.safeParse({
    ...map,
    at: Number(map.at),
    resources,
    value: map.value || null,
    reason: map.reason || null,
    nodes: [],
  });
  return parsed.success ? parsed.data : null;
}
