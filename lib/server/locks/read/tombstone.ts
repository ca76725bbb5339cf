/**
 * The tombstone a force-release leaves in place of a holder's value (docs/holder-sessions.md):
 * `rlx:<40-hex token of the replaced value>:{"auditId","by","reason","at","session"?}`. Every
 * library sees the resource as held (a non-empty string), the console shows it as "releasing", and
 * the holder's library deletes it (compare-and-delete on the prefix `rlx:<own token>:`) once its
 * routine has settled; else it expires with the replaced value's validity.
 *
 * The encoding is the library's (`tombstonePrefix`, `decodeTombstone`, lib/redlock/marks.ts): the
 * prefix the console writes is the very one the holder's ack deletes. What is the console's alone:
 * it writes the tombstone (the library only reads it), it stands in a SHA-1 for the token of another
 * library's value (nobody will acknowledge for it, and the format keeps its fixed length), and it
 * recognises only tombstones of that fixed shape.
 */
import { createHash } from "node:crypto";
import {
  decodeTombstone as decodeMark,
  TOMBSTONE_PREFIX,
  tombstonePrefix,
  type Tombstone,
} from "@redlock-console/redlock";

const TOKEN = /^[0-9a-f]{40}$/;

/** What the console writes into a tombstone: who force-released, why, its audit entry, when, whose session. */
export type TombstoneFields = Omit<Tombstone, "token">;

export const isTombstone = (value: string): boolean =>
  value.startsWith(TOMBSTONE_PREFIX) &&
  TOKEN.test(value.slice(TOMBSTONE_PREFIX.length, TOMBSTONE_PREFIX.length + 40)) &&
  value[TOMBSTONE_PREFIX.length + 40] === ":";

/**
 * The token a tombstone names for `value`: the library's (`tombstonePrefix`: an `rl1:` value's
 * token, a bare 40-hex token of node-redlock or `owner: false` as it is); any other library's value
 * has no such token and nobody will acknowledge for it, so its SHA-1 stands in.
 */
export function tokenOf(value: string): string {
  const token = tombstonePrefix(value).slice(TOMBSTONE_PREFIX.length, -1);
  return TOKEN.test(token) ? token : createHash("sha1").update(value).digest("hex");
}

export function encodeTombstone(replacedValue: string, fields: TombstoneFields): string {
  const { auditId, by, reason, at, session } = fields;
  const json = JSON.stringify(
    session === undefined ? { auditId, by, reason, at } : { auditId, by, reason, at, session },
  );
  return `${TOMBSTONE_PREFIX}${tokenOf(replacedValue)}:${json}`;
}

/** A tombstone's fields (the library's decoding); null for any other value, or a garbled one. */
export function decodeTombstone(value: string): Tombstone | null {
  const tombstone = isTombstone(value) ? decodeMark(value) : undefined;
  return tombstone && Number.isFinite(tombstone.at) ? tombstone : null;
}
