/**
 * The actor of an audit entry as a person (issue 42): the label the timeline, the Events page and
 * the holder's notice also carry, the person behind it, the credential, and the grant that allowed
 * the action. Until the policy decides per lock (auth/policy.ts), the grant is the principal's first
 * whose role suffices.
 */
import type { AuditRecord } from "../audit/audit-trail";
import { roleAtLeast, type Grant, type Principal, type Role } from "./identity";

export type ActorFields = Required<
  Pick<AuditRecord, "actor" | "person" | "credential" | "tokenName" | "role" | "rule">
>;

export function actorFields(
  principal: Principal | null,
  needed: Role,
  allowedBy: Grant | null = null,
): ActorFields {
  if (!principal) {
    return {
      actor: "anonymous",
      person: null,
      credential: null,
      tokenName: null,
      role: null,
      rule: null,
    };
  }
  const grant =
    allowedBy ?? principal.grants.find((each) => roleAtLeast(each.role, needed)) ?? null;
  const person = principal.person;
  return {
    actor: principal.label,
    person: person && {
      subject: person.subject,
      issuer: person.issuer,
      name: person.name,
      email: person.email,
    },
    credential: principal.kind,
    tokenName: principal.tokenName,
    role: grant?.role ?? null,
    rule: grant?.rule ?? null,
  };
}
