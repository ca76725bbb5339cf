/**
 * The tombstone a force-release leaves in place of a holder's value (docs/holder-sessions.md):
 * `rlx:<40-hex token of the replaced value>:{"auditId","by","reason","at","session"?}`. Every
 * library sees the resource as held (a non-empty string), the console shows it as "releasing", and
 * the holder's library deletes it (compare-and-delete on the prefix `rlx:<own token>:`) once its
 * routine has settled; else it expires with the replaced value's validity.
 *
 * The format, encoder and decoder, is the library's wire protocol (`@redlock-console/redlock/
 * protocol`): the prefix the console writes is the very one the holder's ack deletes. What is the
 * console's alone: it stands in a SHA-1 for the token of another library's value (nobody will
 * acknowledge for it, and the format keeps its fixed length).
 */
import { createHash } from "node:crypto";
import {
  decodeTombstone as decodeMark,
  encodeTombstone as encodeMark,
  startsAsTombstone,
  TOKEN_PATTERN,
  tokenOf as libraryTokenOf,
  type Tombstone,
  type TombstoneFields,
} from "@redlock-console/redlock/protocol";

export type { TombstoneFields };

export const isTombstone = (value: string): boolean => startsAsTombstone(value);

/**
 * The token a tombstone names for `value`: the library's (an `rl1:` value's token, a bare 40-hex
 * token of node-redlock or `owner: false` as it is); any other library's value has no such token
 * and nobody will acknowledge for it, so its SHA-1 stands in.
 */
export function tokenOf(value: string): string {
  const token = libraryTokenOf(value);
  return TOKEN_PATTERN.test(token) ? token : createHash("sha1").update(value).digest("hex");
}

export const encodeTombstone = (replacedValue: string, fields: TombstoneFields): string =>
  encodeMark(tokenOf(replacedValue), fields);

/** A tombstone's fields (the library's decoding); null for any other value, or a garbled one. */
export const decodeTombstone = (value: string): Tombstone | null => decodeMark(value) ?? null;
