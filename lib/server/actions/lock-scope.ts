import "server-only";
/**
 * Scope covers the whole lock (issue 49 row 4): a lock of this library on several resources has one
 * value on all of them, and its holder, told that one was force-released or revoked, aborts and
 * releases them all. So an action on one key needs the role over every resource the same lock
 * holds (policy.ts decideWholeLock). The console finds them in its live index: the keys its holder
 * session holds with the same value (sessions/session-holdings.ts). Where it cannot know them (a
 * value that names no session, the value not known before the write, the index still listing), the
 * set is unknown, and only a grant not scoped by resource may act.
 */
import type { Action } from "../auth/policy";
import { decideWholeLock, type LockResources } from "../auth/policy";
import type { Principal } from "../auth/identity";
import { serviceOfValue } from "../auth/authorize";
import { ApiError } from "../errors";
import { describeLatin1Key } from "../locks/read/key-name";
import { sessionOfValue } from "../locks/read/ownership";
import { isTombstone } from "../locks/read/tombstone";
import type { ActionDeps } from "./deps";

export type LockScopeDeps = Pick<ActionDeps, "index" | "sessionHoldings">;

/**
 * The resources of the lock that holds `value` on `key` (latin1 of its bytes), as far as the
 * console can tell; the key itself always among them.
 */
export function resourcesOfLock(
  ctx: LockScopeDeps,
  key: string,
  value: string | null,
): LockResources {
  const own = describeLatin1Key(key).resource;
  if (value === null)
    return {
      known: false,
      why: "with force: true the value is not known before the write, so neither are the other resources its lock holds",
    };
  // A tombstone is the console's own, one per key: its holder has already been told.
  if (isTombstone(value)) return { known: true, resources: [own] };
  const sessionId = sessionOfValue(value);
  if (sessionId === null)
    return {
      known: false,
      why: "this value names no holder session (another library, or session: false), so the console cannot tell which other resources the same lock holds",
    };
  if (!ctx.index.complete)
    return {
      known: false,
      why: "the console's index is still listing a node, so it may not show every resource of this lock yet",
    };
  const siblings = ctx.sessionHoldings
    .holdingsOf(sessionId)
    .filter((holding) => holding.value === value && holding.key !== key)
    .map((holding) => describeLatin1Key(holding.key).resource);
  return { known: true, resources: [own, ...siblings] };
}

/** Throws 403 forbidden unless one grant covers every resource of the lock holding `value`. */
export function assertWholeLock(
  ctx: LockScopeDeps,
  principal: Principal,
  action: Action,
  key: string,
  value: string | null,
): void {
  const decision = decideWholeLock(principal.grants, action, {
    resources: resourcesOfLock(ctx, key, value),
    service: serviceOfValue(value),
  });
  if (!decision.allowed) throw new ApiError("forbidden", decision.reason);
}
