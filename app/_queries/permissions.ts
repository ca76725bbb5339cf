"use client";
/**
 * What the signed-in person may do, from GET /api/session's grants and the same policy the server
 * enforces (lib/server/auth/policy.ts, pure): the UI offers only the actions allowed, and says why
 * the others are absent. The server stays the authority: it checks again, on the lock it reads.
 */
import type { LockRow, SessionResponse } from "@/lib/api";
import {
  ACTIONS,
  decideConsole,
  decideLock,
  decideRole,
  type Action,
  type LockTarget,
} from "@/lib/server/auth/policy";
import { useSession } from "./session";

/** Allowed, or why not in a sentence ("Force release needs operator for service orders; you are viewer."). */
export type Permission =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** The policy's view of a lock row: its resource and its holder's `service` label. */
export function lockTarget(lock: Pick<LockRow, "resource" | "owner">): LockTarget {
  const service = lock.owner.kind === "labelled" ? (lock.owner.labels.service ?? null) : null;
  return { resource: lock.resource, service };
}

export function permissionOf(
  session: SessionResponse | undefined,
  action: Action,
  target: LockTarget | null,
): Permission {
  if (!session) return { allowed: false, reason: "Checking who you are…" };
  if (session.readOnly)
    return { allowed: false, reason: "The console is read-only (CONSOLE_READ_ONLY)." };
  if (!session.authenticated)
    return { allowed: false, reason: `${ACTIONS[action].words} needs you to sign in.` };
  const decision =
    ACTIONS[action].on === "console"
      ? decideConsole(session.grants, action)
      : target === null
        ? decideRole(session.grants, action)
        : decideLock(session.grants, action, target);
  return decision.allowed ? { allowed: true } : { allowed: false, reason: decision.reason };
}

/** May the signed-in person take `action` (on `target`, for an action on a lock)? */
export function usePermission(action: Action, target: LockTarget | null = null): Permission {
  return permissionOf(useSession().data, action, target);
}
