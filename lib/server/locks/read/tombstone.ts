/**
 * The tombstone a force-release leaves in place of a holder's value (docs/holder-sessions.md):
 * `rlx:<40-hex token of the replaced value>:{"auditId","by","reason","at","session"?}`. Every
 * library sees the resource as held (a non-empty string), the console shows it as "releasing", and
 * the holder's library deletes it (compare-and-delete on the prefix `rlx:<own token>:`) once its
 * routine has settled; else it expires with the replaced value's validity.
 */
import { createHash } from "node:crypto";
import { decodeValue } from "@redlock-console/redlock";

export const TOMBSTONE_PREFIX = "rlx:";
const TOKEN = /^[0-9a-f]{40}$/;

export interface TombstoneFields {
  readonly auditId: string;
  /** Who force-released (the audit trail's actor label). */
  readonly by: string;
  readonly reason: string;
  /** Console clock, epoch ms. */
  readonly at: number;
  /** The replaced holder's session; absent for a holder without one. */
  readonly session?: string;
}

export const isTombstone = (value: string): boolean =>
  value.startsWith(TOMBSTONE_PREFIX) &&
  TOKEN.test(value.slice(TOMBSTONE_PREFIX.length, TOMBSTONE_PREFIX.length + 40)) &&
  value[TOMBSTONE_PREFIX.length + 40] === ":";

/**
 * The token a tombstone names for `value`: this library's token, a bare 40-hex token (node-redlock,
 * `owner: false`) as it is; any other library's value has no such token and nobody will
 * acknowledge for it, so its SHA-1 stands in (the format keeps its fixed length).
 */
export function tokenOf(value: string): string {
  const decoded = decodeValue(value);
  if (decoded) return decoded.token;
  if (TOKEN.test(value)) return value;
  return createHash("sha1").update(value).digest("hex");
}

export function encodeTombstone(replacedValue: string, fields: TombstoneFields): string {
  const { auditId, by, reason, at, session } = fields;
  const json = JSON.stringify(
    session === undefined ? { auditId, by, reason, at } : { auditId, by, reason, at, session },
  );
  return `${TOMBSTONE_PREFIX}${tokenOf(replacedValue)}:${json}`;
}

/** A tombstone's fields; null for any other value, or a garbled one. */
export function decodeTombstone(value: string): (TombstoneFields & { token: string }) | null {
  if (!isTombstone(value)) return null;
  try {
    const parsed = JSON.parse(value.slice(TOMBSTONE_PREFIX.length + 41)) as Record<string, unknown>;
    const { auditId, by, reason, at, session } = parsed;
    if (typeof auditId !== "string" || typeof by !== "string" || typeof reason !== "string")
      return null;
    if (typeof at !== "number") return null;
    return {
      token: value.slice(TOMBSTONE_PREFIX.length, TOMBSTONE_PREFIX.length + 40),
      auditId,
      by,
      reason,
      at,
      ...(typeof session === "string" ? { session } : {}),
    };
  } catch {
    return null;
  }
}
