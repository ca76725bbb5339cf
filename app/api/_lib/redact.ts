import "server-only";
/**
 * What anonymous readers (public reads, not signed in) see of lock values: a digest, never the value.
 * Lock values are tokens, and with `LOCK_MATCH=*` an application's 40-hex or UUID-shaped secret with a
 * TTL reads as a lock, so a public console must not hand them out. The digest (`sha1:` + 12 hex
 * digits of the SHA-1 of the whole value, read-key.ts) still tells values apart and is what
 * force-release accepts as `expectedDigest`. Signed-in callers get the values as they are.
 */
import type {
  AuditResponse,
  HolderSessionResponse,
  HolderSessionsResponse,
  LockResponse,
  LockRow,
  Transition,
} from "@/lib/api";
import type { Principal } from "@/lib/server/auth/credentials";
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

/** `redact(body)` for anonymous callers, the body as it is for signed-in ones. */
export const forReader = <Body>(
  principal: Principal | null,
  body: Body,
  redact: (body: Body) => Body,
) => (principal === null ? redact(body) : body);
