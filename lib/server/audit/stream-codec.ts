/**
 * Audit entries <-> flat stream field lists. Reading validates, so a foreign or corrupt entry is
 * skipped. The follow-up fields are written only when set, and read as null when absent: entries
 * written before they existed stay readable.
 */
import { auditEntrySchema, type AuditEntry } from "@/lib/api";

const FOLLOW_UP_FIELDS = ["followUpOf", "holderDid", "releasedAfterMs"] as const;
/** The person fields (issue 42), written only when set, as the follow-up fields are. */
const PERSON_TEXT_FIELDS = ["credential", "tokenName", "role", "rule", "incident"] as const;

export function toStreamFields(entry: AuditEntry): string[] {
  const followUp = FOLLOW_UP_FIELDS.flatMap((name) =>
    entry[name] === null ? [] : [name, String(entry[name])],
  );
  const person = [
    ...(entry.person === null ? [] : ["person", JSON.stringify(entry.person)]),
    ...PERSON_TEXT_FIELDS.flatMap((name) => (entry[name] === null ? [] : [name, entry[name]])),
  ];
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
    ...followUp,
    ...person,
  ];
}

export function fromStreamFields(fields: readonly string[]): AuditEntry | null {
  const map: Record<string, string> = {};
  for (let index = 0; index + 1 < fields.length; index += 2)
    map[fields[index]!] = fields[index + 1]!;
  let resources: unknown;
  let person: unknown;
  try {
    resources = JSON.parse(map.resources ?? "[]");
    person = map.person === undefined ? null : JSON.parse(map.person);
  } catch {
    return null;
  }
  const parsed = auditEntrySchema.safeParse({
    ...map,
    at: Number(map.at),
    resources,
    value: map.value || null,
    reason: map.reason || null,
    followUpOf: map.followUpOf ?? null,
    holderDid: map.holderDid ?? null,
    releasedAfterMs: map.releasedAfterMs === undefined ? null : Number(map.releasedAfterMs),
    nodes: [],
    person,
    ...Object.fromEntries(PERSON_TEXT_FIELDS.map((name) => [name, map[name] ?? null])),
  });
  return parsed.success ? parsed.data : null;
}
