import "server-only";
/**
 * What anonymous readers (public reads, not signed in) see of lock values: a digest, never the value.
 * Lock values are tokens, and with `LOCK_MATCH=*` an application's 40-hex or UUID-shaped secret with a
 * TTL reads as a lock, so a public console must not hand them out. The digest (`sha1:` + 12 hex
 * digits of the SHA-1 of the whole value, read-key.ts) still tells values apart and is what
 * force-release accepts as `expectedDigest`. Operators and admins get the values as they are, and
 * viewers too when CONSOLE_VIEWER_VALUES says so (auth/policy.ts, readsValues).
 */
import type {
  AuditResponse,
  ContentionResponse,
  HolderSessionResponse,
  HolderSessionsResponse,
  LockResponse,
  LockRow,
  Transition,
} from "@/lib/api";
import type { Principal } from "@/lib/server/auth/credentials";
import { readsValues } from "@/lib/server/auth/policy";
import { digestOf } from "@/lib/server/locks/read/read-key";

/** The digest in place of a value; null stays null. */
const hidden = (value: string | null, digest?: string | null): string | null =>
  value === null ? null : (digest ?? digestOf(value));

export function redactRow<Row extends LockRow>(row: Row): Row {
  return {
    ...row,
    value: hidden(row.value, row.valueDigest),
    nodes: row.nodes.map((node) => ({ ...node, value: hidden(node.value, node.valueDigest) })),
  };
}

export const redactLockResponse = (response: LockResponse): LockResponse => ({
  ...response,
  lock: response.lock && redactRow(response.lock),
  ...(response.group && {
    group: {
      ...response.group,
      members: response.group.members.map((member) => ({
        ...member,
        lock: member.lock && redactRow(member.lock),
      })),
    },
  }),
});

/**
 * A transition's values: the console keeps the first READ_VALUE_MAX_BYTES of a long value, so the
 * digest of such a value here is of those bytes (the lock's rows carry the whole value's).
 */
export const redactTransition = (transition: Transition): Transition => ({
  ...transition,
  value: hidden(transition.value),
  afterExpired: transition.afterExpired && {
    ...transition.afterExpired,
    value: hidden(transition.afterExpired.value)!,
  },
  possibleOverlap: transition.possibleOverlap && {
    ...transition.possibleOverlap,
    previousValue: hidden(transition.possibleOverlap.previousValue)!,
  },
});

export function redactSessions<Body extends HolderSessionsResponse | HolderSessionResponse>(
  body: Body,
): Body {
  const locksOf = <Session extends { locks: Array<{ value: string }> }>(session: Session) => ({
    ...session,
    locks: session.locks.map((lock) => ({ ...lock, value: hidden(lock.value)! })),
  });
  return "sessions" in body
    ? { ...body, sessions: body.sessions.map(locksOf) }
    : { ...body, session: locksOf(body.session) };
}

export const redactAudit = (body: AuditResponse): AuditResponse => ({
  ...body,
  entries: body.entries.map((entry) => ({ ...entry, value: hidden(entry.value) })),
});

/** The values a participant holds (what a revoke must name): digests, as on every other route. */
export const redactContention = (body: ContentionResponse): ContentionResponse => ({
  ...body,
  participants: Object.fromEntries(
    Object.entries(body.participants).map(([id, participant]) => [
      id,
      {
        ...participant,
        holds: participant.holds.map((hold) => ({ ...hold, value: hidden(hold.value)! })),
      },
    ]),
  ),
});

/** Whether this reader gets lock values as they are; anonymous readers never do. */
export const seesValues = (
  ctx: { readonly config: { readonly viewerValues: boolean } },
  principal: Principal | null,
): boolean => principal !== null && readsValues(principal.grants, ctx.config.viewerValues);

/** `redact(body)` for readers without values (anonymous, viewers), the body as it is for the rest. */
export const forReader = <Body>(
  ctx: { readonly config: { readonly viewerValues: boolean } },
  principal: Principal | null,
  body: Body,
  redact: (body: Body) => Body,
) => (seesValues(ctx, principal) ? body : redact(body));
