/**
 * Who may do what: each action's least role, and whether one grant covers a lock. A grant is one
 * CONSOLE_RBAC rule's role paired with that same rule's scope (auth/rbac.ts), and an action on a
 * lock is allowed only when ONE grant has both the role and a scope covering the lock: a payments
 * operator who is also everyone's viewer may force payments' locks, never orders'.
 *
 * Pure and browser-safe (no "server-only", no Redis): the server decides with it (authorize.ts),
 * and the UI shows only the actions it allows, explaining the others in the same words.
 */
import { globMatch } from "../locks/read/glob";
import { scopeNameOf } from "../locks/read/member-shape";
import { highestRole, roleAtLeast, type Grant, type Role } from "./identity";

interface ActionRule {
  readonly role: Role;
  /** The action in words, as a sentence starts: "Force release needs operator…". */
  readonly words: string;
  /** On a lock (scoped), or on the console as a whole (then only an unscoped grant will do). */
  readonly on: "lock" | "console";
}

export const ACTIONS = {
  read: { role: "viewer", words: "Reading", on: "console" },
  acquire: { role: "operator", words: "Acquiring in the playground", on: "lock" },
  extend: { role: "operator", words: "Extending in the playground", on: "lock" },
  release: { role: "operator", words: "Releasing in the playground", on: "lock" },
  revoke: { role: "operator", words: "Asking the holder to release", on: "lock" },
  "force-release": { role: "operator", words: "Force release", on: "lock" },
  /** The immediate delete (`disposal: "delete-now"`): the holder may still act as the owner. */
  "force-delete": { role: "admin", words: "Deleting a lock now", on: "lock" },
  "release-session": { role: "operator", words: "Releasing a holder session", on: "lock" },
  /** Force-release of a value of no lock format (`notALock: true`): it may be application data. */
  "force-not-a-lock": {
    role: "admin",
    words: "Force-releasing a value that is no lock",
    on: "lock",
  },
  /** Node settings (keyspace events): they change what every lock on the node looks like. */
  "node-admin": { role: "admin", words: "Changing a node's settings", on: "console" },
  "token-admin": { role: "admin", words: "Managing other people's tokens", on: "console" },
  "sign-in-admin": { role: "admin", words: "Ending a person's sign-ins", on: "console" },
} as const satisfies Record<string, ActionRule>;

export type Action = keyof typeof ACTIONS;

/** A lock as the policy sees it: its resource and its holder's owner `service` label. */
export interface LockTarget {
  readonly resource: string;
  /** The holder's `service` label; null when the holder names none (or it could not be read). */
  readonly service: string | null;
}

export type Decision =
  | { readonly allowed: true; readonly grant: Grant }
  | { readonly allowed: false; readonly reason: string };

const unscoped = (grant: Grant) => grant.resources === null && grant.services === null;

// A semaphore's or read-write lock's member is scoped by its group's name (member-shape.ts).
const resourceCovered = (grant: Grant, resource: string) =>
  grant.resources === null ||
  grant.resources.some((glob) => globMatch(glob, scopeNameOf(resource)));

/** Does this one grant's scope cover the lock? */
export function covers(grant: Grant, target: LockTarget): boolean {
  if (!resourceCovered(grant, target.resource)) return false;
  if (grant.services === null) return true;
  return target.service !== null && grant.services.includes(target.service);
}

const list = (items: readonly string[]) => items.join(", ");

/** "every lock", "resources payments:*", "service payments", "resources a:* held by service b". */
export function scopeWords(grant: Pick<Grant, "resources" | "services">): string {
  const services =
    grant.services && `service${grant.services.length > 1 ? "s" : ""} ${list(grant.services)}`;
  if (grant.resources === null) return services ?? "every lock";
  const resources = `resource${grant.resources.length > 1 ? "s" : ""} ${list(grant.resources)}`;
  return services ? `${resources} held by ${services}` : resources;
}

/** "you are viewer", or "you have no role (…)" when no grant is left. */
function youAre(grants: readonly Grant[]): string {
  const highest = highestRole(grants);
  return highest === null
    ? "you have no role (no CONSOLE_RBAC rule names your groups)"
    : `you are ${highest}`;
}

/** "you have operator for service payments, viewer for every lock". */
const youHave = (ranked: readonly Grant[]) =>
  `you have ${list(ranked.map((grant) => `${grant.role} for ${scopeWords(grant)}`))}`;

/**
 * What the lock needs, in the terms the person's grants use: its service when a grant is scoped
 * by service (or none has the role), else its resource.
 */
const lockWords = (target: LockTarget, ranked: readonly Grant[]) =>
  target.service !== null &&
  (ranked.length === 0 || ranked.some((grant) => grant.services !== null))
    ? `service ${target.service}`
    : `resource ${target.resource}`;

const holderWords = (target: LockTarget) =>
  target.service === null
    ? `this lock (${target.resource}) names no service`
    : `this lock (${target.resource}) is held by service ${target.service}`;

/**
 * Lock values as they are, rather than their digests: for an operator or admin (of any scope: they
 * act on values), and for a viewer only when CONSOLE_VIEWER_VALUES says so. Console-wide, so that
 * one cached body serves each kind of reader; anonymous readers never get values.
 */
export function readsValues(grants: readonly Grant[], viewerValues: boolean): boolean {
  return (
    grants.some((grant) => roleAtLeast(grant.role, "operator")) ||
    (viewerValues && grants.length > 0)
  );
}

/** A console-wide action: one grant of the role over every lock. */
export function decideConsole(grants: readonly Grant[], action: Action): Decision {
  const { role, words } = ACTIONS[action];
  const ranked = grants.filter((grant) => roleAtLeast(grant.role, role));
  const grant = ranked.find(unscoped);
  if (grant) return { allowed: true, grant };
  if (ranked.length === 0)
    return { allowed: false, reason: `${words} needs ${role}; ${youAre(grants)}.` };
  return { allowed: false, reason: `${words} needs ${role} for every lock; ${youHave(ranked)}.` };
}

/** An action on one lock: one grant with both the role and a scope covering the lock. */
export function decideLock(grants: readonly Grant[], action: Action, target: LockTarget): Decision {
  const { role, words } = ACTIONS[action];
  const ranked = grants.filter((grant) => roleAtLeast(grant.role, role));
  const grant = ranked.find((candidate) => covers(candidate, target));
  if (grant) return { allowed: true, grant };
  const needs = `${words} needs ${role} for ${lockWords(target, ranked)}`;
  if (ranked.length === 0) return { allowed: false, reason: `${needs}; ${youAre(grants)}.` };
  return { allowed: false, reason: `${needs}; ${youHave(ranked)}; ${holderWords(target)}.` };
}

/** The resources one lock holds, as the console knows them: every one, or unknown and why. */
export type LockResources =
  | { readonly known: true; readonly resources: readonly string[] }
  | { readonly known: false; readonly why: string };

/** Resources named in a refusal at most. */
const NAMED_RESOURCES_MAX = 10;

/**
 * An action on a lock that may span several resources (issue 49 row 4): its holder loses the whole
 * lock at once (its `using()` aborts and releases every resource), so ONE grant must cover every
 * resource the lock holds, with its service. A set the console cannot know is covered only by a
 * grant not scoped by resource. Asked after decideLock allowed the key itself.
 */
export function decideWholeLock(
  grants: readonly Grant[],
  action: Action,
  lock: { readonly resources: LockResources; readonly service: string | null },
): Decision {
  const { role, words } = ACTIONS[action];
  const ranked = grants.filter((grant) => roleAtLeast(grant.role, role));
  const { resources, service } = lock;
  const grant = ranked.find((candidate) =>
    resources.known
      ? resources.resources.every((resource) => covers(candidate, { resource, service }))
      : candidate.resources === null && covers(candidate, { resource: "", service }),
  );
  if (grant) return { allowed: true, grant };
  if (!resources.known)
    return {
      allowed: false,
      reason: `${words} needs ${role} for every resource the lock may hold: ${resources.why}, and a grant scoped by resource covers only the resources it names; ${youHave(ranked)}.`,
    };
  const outside = resources.resources.filter(
    (resource) => !ranked.some((candidate) => covers(candidate, { resource, service })),
  );
  const named = (outside.length > 0 ? outside : resources.resources).slice(0, NAMED_RESOURCES_MAX);
  const more = resources.resources.length > NAMED_RESOURCES_MAX ? ", …" : "";
  return {
    allowed: false,
    reason: `${words} needs ${role} for every resource of this lock: it holds ${resources.resources.length} (${resources.resources.slice(0, NAMED_RESOURCES_MAX).join(", ")}${more}), and its holder loses all of them at once; ${outside.length > 0 ? `outside your scope: ${named.join(", ")}` : "no one grant of yours covers them all"}; ${youHave(ranked)}.`,
  };
}

/**
 * Before the holder is read: allowed when a grant of the role covers the resource whatever its
 * service; "needs-service" when only service-scoped grants could (then decide again with the
 * holder's service, read where the action reads the lock); denied when none can.
 */
export function decideResource(
  grants: readonly Grant[],
  action: Action,
  resource: string,
): Decision | "needs-service" {
  const { role } = ACTIONS[action];
  const ranked = grants.filter((grant) => roleAtLeast(grant.role, role));
  const grant = ranked.find(
    (candidate) => candidate.services === null && resourceCovered(candidate, resource),
  );
  if (grant) return { allowed: true, grant };
  if (ranked.some((candidate) => resourceCovered(candidate, resource))) return "needs-service";
  // No grant covers the resource, whoever holds it: said without reading the holder.
  const { words } = ACTIONS[action];
  const needs = `${words} needs ${role} for resource ${resource}`;
  if (ranked.length === 0) return { allowed: false, reason: `${needs}; ${youAre(grants)}.` };
  return { allowed: false, reason: `${needs}; ${youHave(ranked)}.` };
}

/** Whether any grant has the action's role at all (the route's first, scope-free check). */
export function decideRole(grants: readonly Grant[], action: Action): Decision {
  const { role, words } = ACTIONS[action];
  const grant = grants.find((candidate) => roleAtLeast(candidate.role, role));
  return grant
    ? { allowed: true, grant }
    : { allowed: false, reason: `${words} needs ${role}; ${youAre(grants)}.` };
}
