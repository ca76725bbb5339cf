import "server-only";
/**
 * The policy (policy.ts) as the server enforces it: a denial is a 403 `forbidden` whose message
 * names what was missing, thrown before anything is written. A lock's `service` is the owner label
 * in the holder's value: the value the action compares on the nodes (the operator's expected value,
 * or the one the check read there), so the service decided on is the one whose lock is written.
 */
import { decodeValue } from "@redlock-console/redlock";
import { ApiError } from "../errors";
import type { Grant, Principal } from "./identity";
import {
  decideConsole,
  decideLock,
  decideResource,
  decideRole,
  type Action,
  type Decision,
  type LockTarget,
} from "./policy";

/** The `service` owner label a value of this library carries; null for any other value. */
export function serviceOfValue(value: string | null | undefined): string | null {
  if (!value) return null;
  return decodeValue(value)?.owner.labels.service ?? null;
}

function granted(decision: Decision): Grant {
  if (!decision.allowed) throw new ApiError("forbidden", decision.reason);
  return decision.grant;
}

/** Some grant has the action's role (scope aside): the route's first check. */
export const assertRole = (principal: Principal, action: Action): Grant =>
  granted(decideRole(principal.grants, action));

/** A console-wide action (node settings, others' tokens): a grant of the role over every lock. */
export const assertConsoleAction = (principal: Principal, action: Action): Grant =>
  granted(decideConsole(principal.grants, action));

export const assertLockAction = (principal: Principal, action: Action, target: LockTarget): Grant =>
  granted(decideLock(principal.grants, action, target));

/**
 * For force-release, which reads the holder on the nodes before writing: with the value the
 * operator saw, decided now (the write compares exactly that value); else null when the resource
 * alone decides (allowed; denied is thrown now), or the check to run with the value the nodes
 * hold, before the write.
 */
export function checkAfterRead(
  principal: Principal,
  action: Action,
  resource: string,
  expectedValue: string | undefined,
): ((holderValue: string | null) => void) | null {
  if (expectedValue !== undefined) {
    assertLockAction(principal, action, { resource, service: serviceOfValue(expectedValue) });
    return null;
  }
  const decision = decideResource(principal.grants, action, resource);
  if (decision !== "needs-service") {
    granted(decision);
    return null;
  }
  return (holderValue) => {
    assertLockAction(principal, action, { resource, service: serviceOfValue(holderValue) });
  };
}
