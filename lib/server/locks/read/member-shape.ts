/**
 * A semaphore's or read-write lock's member key by its shape alone (group-count.ts: the recorded
 * count decides the rest). Pure and browser-safe: the policy scopes a member by its group's name.
 */

/** A member key's place in its group, by the key's shape alone (the count decides the rest). */
export type MemberShape =
  | { readonly kind: "permit"; readonly name: string; readonly index: number }
  | { readonly kind: "writer"; readonly name: string }
  | { readonly kind: "reader"; readonly name: string; readonly index: number };

// An index as the library writes it: no leading zero (`{n}#07` is no permit key of `n`).
const PERMIT = /^\{(.+)\}#(0|[1-9]\d{0,8})$/s;
const WRITER = /^\{(.+)\}#w$/s;
const READER = /^\{(.+)\}#r(0|[1-9]\d{0,8})$/s;

/** The member a key's name would be (latin1 of its bytes); null for any other shape. */
export function memberShapeOf(key: string): MemberShape | null {
  const permit = PERMIT.exec(key);
  if (permit) return { kind: "permit", name: permit[1]!, index: Number(permit[2]) };
  const writer = WRITER.exec(key);
  if (writer) return { kind: "writer", name: writer[1]! };
  const reader = READER.exec(key);
  if (reader) return { kind: "reader", name: reader[1]!, index: Number(reader[2]) };
  return null;
}

/**
 * The name a scope glob is matched against (issue 49 row 4): a member key's group name
 * (`{payments:x}#0` → `payments:x`), so a `payments:*` grant covers the semaphore `payments:x`
 * permit by permit; any other key's own name.
 */
export const scopeNameOf = (resource: string): string => memberShapeOf(resource)?.name ?? resource;
