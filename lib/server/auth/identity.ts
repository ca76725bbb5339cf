/**
 * Who a request acts as, and what it may do: the shapes every part of identity shares (sign-in with
 * OpenID Connect, an authenticating proxy, personal tokens, the break-glass admin token) and the
 * policy reads (roles and their scopes). A person's login is a "sign-in"; "session" is a holder's.
 */

/** Ordered: each role may do everything the one before it may. */
export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

export function roleAtLeast(role: Role, wanted: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(wanted);
}

/** The highest role among grants; null when there is none. */
export function highestRole(grants: readonly Grant[]): Role | null {
  let highest: Role | null = null;
  for (const { role } of grants) {
    if (highest === null || roleAtLeast(role, highest)) highest = role;
  }
  return highest;
}

/** A person as the identity provider (or the authenticating proxy) names them. */
export interface Person {
  /** The provider's subject (`sub`), or the proxy's user header. */
  readonly subject: string;
  /** The provider's issuer URL; `proxy` for a person named by an authenticating proxy. */
  readonly issuer: string;
  readonly name: string | null;
  readonly email: string | null;
  readonly groups: readonly string[];
}

/**
 * One rule's role with that same rule's scope: an action on a lock is allowed when one grant
 * covers both the role and the lock (never one grant's role with another's scope).
 */
export interface Grant {
  readonly role: Role;
  /** Resource globs this grant covers; null for every resource. */
  readonly resources: readonly string[] | null;
  /** Owner `service` labels this grant covers; null for every service. */
  readonly services: readonly string[] | null;
  /** Where the grant came from, for the audit and for 403s: "CONSOLE_RBAC[2] (group payments-oncall)". */
  readonly rule: string;
}

/** How the request proved who it is. */
export type CredentialKind = "sign-in" | "proxy" | "personal-token" | "break-glass";

export interface Principal {
  readonly kind: CredentialKind;
  /** A bearer credential (scripts) or a browser's cookie: decides the same-origin rule. */
  readonly carrier: "bearer" | "cookie" | "proxy";
  /**
   * The audit line's actor in words: "Alice Oncall <alice@example.com>", "Alice Oncall
   * <alice@example.com> via token ci-unlock", "break-glass (token)", "break-glass (sign-in 7Q2gyTNM)".
   * Never derived from a secret, since audit lines are readable.
   */
  readonly label: string;
  /** null for the break-glass token, which is nobody in particular. */
  readonly person: Person | null;
  readonly grants: readonly Grant[];
  /** The sign-in's or token's id (what a revocation names); null for the bearer admin token. */
  readonly credentialId: string | null;
  /** A personal token's name; null otherwise. */
  readonly tokenName: string | null;
  /** When the credential ends (epoch ms); null when it does not. */
  readonly expiresAt: number | null;
}

/** The break-glass grant: every action on every lock. */
export const BREAK_GLASS_GRANT: Grant = {
  role: "admin",
  resources: null,
  services: null,
  rule: "break-glass (CONSOLE_ADMIN_TOKEN)",
};

/** "Alice Oncall <alice@example.com>", falling back to the email or the subject. */
export function personLabel(person: Person): string {
  if (person.name && person.email) return `${person.name} <${person.email}>`;
  return person.name ?? person.email ?? `${person.subject} (${person.issuer})`;
}

/** The shared admin token, as a bearer credential or through a login with it (a cookie). */
export function breakGlassPrincipal(
  carrier: "bearer" | "cookie",
  label: string,
  credentialId: string | null,
  expiresAt: number | null,
): Principal {
  return {
    kind: "break-glass",
    carrier,
    label,
    person: null,
    grants: [BREAK_GLASS_GRANT],
    credentialId,
    tokenName: null,
    expiresAt,
  };
}
