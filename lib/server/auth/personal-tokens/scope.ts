/**
 * Whether a token's requested grant lies within one of its owner's grants: the same role-and-scope
 * pairing CONSOLE_RBAC uses, so a payments operator who is also everyone's viewer cannot mint an
 * operator token for orders. A pure rule, tested as a table (test/server/token-scope.test.ts).
 */
import { roleAtLeast, type Grant } from "../identity";

/** Redis glob metacharacters: a pattern without them matches only itself. */
const GLOB_SPECIAL = /[*?[\]\\]/;

/**
 * Every name `inner` matches, `outer` matches too. Decided only where it is certain, and refused
 * otherwise: `outer` is `*`, the same pattern, or a literal prefix followed by one `*` (`payments:*`
 * covers `payments:eu:*` and `payments:42`). Glob containment in general is harder than it is worth
 * here; a person who needs another shape asks for their own pattern as it stands.
 */
export function globWithin(inner: string, outer: string): boolean {
  if (outer === "*" || inner === outer) return true;
  if (!outer.endsWith("*")) return false;
  const prefix = outer.slice(0, -1);
  return !GLOB_SPECIAL.test(prefix) && inner.startsWith(prefix);
}

/** null is "everything": only an outer null covers an inner null. */
function listWithin(
  inner: readonly string[] | null,
  outer: readonly string[] | null,
  within: (inner: string, outer: string) => boolean,
): boolean {
  if (outer === null) return true;
  if (inner === null) return false;
  return inner.every((item) => outer.some((bound) => within(item, bound)));
}

export interface RequestedGrant {
  readonly role: Grant["role"];
  readonly resources: readonly string[] | null;
  readonly services: readonly string[] | null;
}

export function grantWithin(requested: RequestedGrant, owner: Grant): boolean {
  return (
    roleAtLeast(owner.role, requested.role) &&
    listWithin(requested.resources, owner.resources, globWithin) &&
    listWithin(requested.services, owner.services, (inner, outer) => inner === outer)
  );
}

/** The owner's first grant that covers the requested one; undefined when none does. */
export function coveringGrant(
  requested: RequestedGrant,
  ownerGrants: readonly Grant[],
): Grant | undefined {
  return ownerGrants.find((grant) => grantWithin(requested, grant));
}

/** "operator for resources payments:* and services payments", "viewer for everything". */
export function grantWords(grant: RequestedGrant): string {
  const scope = [
    grant.resources && `resources ${grant.resources.join(", ")}`,
    grant.services && `services ${grant.services.join(", ")}`,
  ].filter(Boolean);
  return `${grant.role} for ${scope.length > 0 ? scope.join(" and ") : "everything"}`;
}
