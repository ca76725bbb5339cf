import "server-only";
/**
 * Who a request is, in two steps, so that a read is charged to who asks before any lock node is
 * read for them. `claimOf` checks locally what can be (the proxy's address and headers, the admin
 * token, the seals of the sign-in cookies, a personal token's shape) and names the read budget;
 * `confirm` then makes the node read the claim needs, if any (a personal token's record, whether a
 * sign-in ended), and says who it is.
 *
 * Budgets are per who asks: a person (however they arrive), a personal token (by its secret, so a
 * stranger naming a token's id spends nothing of the token's own), the break-glass token per client
 * address, and anonymous requests per client address. A wrong credential takes no read budget: it
 * has its own (credential-failures.ts), checked before the node read a personal token costs, so a
 * flood of wrong `rlc_` tokens from one client costs at most that budget's node reads.
 */
import { PERSONAL_TOKEN_PREFIX } from "@/lib/api";
import type { ConsoleConfig } from "../config";
import { ApiError } from "../errors";
import type { BreakGlass } from "./break-glass";
import { clientIp } from "./client-info";
import type { CredentialFailures } from "./credential-failures";
import {
  BEARER_LABEL,
  readCookie,
  safeEqual,
  SESSION_COOKIE,
  sessionLabel,
  verifySessionValue,
} from "./credentials";
import { breakGlassPrincipal, personLabel, type Person, type Principal } from "./identity";
import type { PersonalTokens } from "./personal-tokens";
import { hashSecret } from "./personal-tokens/secret";
import { createProxyIdentity } from "./proxy-identity";
import type { Revocations } from "./revocations";
import type { SignIns } from "./sign-in/sign-ins";

/** One read budget: its limiter key, and whose it is in words ("Too many <words>"). */
export interface ReadBudget {
  readonly key: string;
  readonly words: string;
}

export interface Claim {
  readonly budget: ReadBudget;
  /** The node read the claim needs, if any, then who it is; null: nobody (anonymous). */
  confirm(): Promise<Principal | null>;
}

export interface ClaimDeps {
  readonly revocations: Pick<Revocations, "isRevoked">;
  readonly failures: CredentialFailures;
  readonly signIns: Pick<SignIns, "sealed" | "principalOf" | "records">;
  readonly breakGlass: Pick<BreakGlass, "used">;
  readonly personalTokens?: Pick<PersonalTokens, "check">;
}

// Kinds first and a newline between parts: no two kinds' keys can be equal.
const personBudget = (person: Pick<Person, "issuer" | "subject">, label: string): ReadBudget => ({
  key: `person\n${person.issuer}\n${person.subject}`,
  words: `reads by ${label}`,
});
const addressBudget = (kind: "anonymous" | "break-glass", client: string): ReadBudget => ({
  key: `${kind}\n${client}`,
  words: `${kind} reads from this client address`,
});
const known = (budget: ReadBudget, principal: Principal | null): Claim => ({
  budget,
  confirm: () => Promise.resolve(principal),
});

/** `rlc_…`: a personal token, valid while a majority of the nodes holds its record. */
async function personalTokenPrincipal(
  request: Request,
  token: string,
  deps: ClaimDeps,
): Promise<Principal> {
  const check = (await deps.personalTokens?.check(token)) ?? { outcome: "invalid" as const };
  if (check.outcome === "undecided") {
    // Not the caller's fault, so not a credential failure; refused all the same (fail closed).
    throw new ApiError(
      "quorum_unavailable",
      "Too few lock nodes answered to check this personal token; retry when a majority is up.",
    );
  }
  if (check.outcome === "invalid") {
    deps.failures.record(request, "bearer");
    throw new ApiError(
      "unauthorized",
      "The personal token is not valid: unknown, revoked or expired. Create a new one on the Tokens page.",
    );
  }
  deps.failures.succeeded(request);
  return check.principal;
}

export function createClaims(config: ConsoleConfig, deps: ClaimDeps): (request: Request) => Claim {
  const adminToken = config.breakGlass ? config.adminToken : undefined;
  const proxy = createProxyIdentity(config);
  const breakGlassUsed = (principal: Principal, request: Request) => {
    deps.breakGlass.used(principal, request);
    return principal;
  };

  /** A bearer credential: throws 429 while the client is blocked, 401 when it is wrong. */
  function bearerClaim(request: Request, authorization: string, client: string): Claim {
    deps.failures.assertAllowed(request);
    const token = /^bearer (.+)$/i.exec(authorization.trim())?.[1]?.trim();
    if (token?.startsWith(PERSONAL_TOKEN_PREFIX)) {
      return {
        budget: { key: `token\n${hashSecret(token)}`, words: "reads with this personal token" },
        confirm: () => personalTokenPrincipal(request, token, deps),
      };
    }
    if (config.adminToken && !config.breakGlass) {
      throw new ApiError(
        "unauthorized",
        "The break-glass admin token is turned off here (CONSOLE_BREAK_GLASS=false): sign in instead.",
      );
    }
    if (!token || !adminToken || !safeEqual(token, adminToken)) {
      deps.failures.record(request, "bearer");
      throw new ApiError(
        "unauthorized",
        "The credential is not valid: send 'Authorization: Bearer <admin token>'.",
      );
    }
    deps.failures.succeeded(request);
    // No fingerprint of the token: anything computed from the token alone, once published in
    // the (publicly readable) audit trail, lets anyone test guesses offline.
    const principal = breakGlassPrincipal("bearer", BEARER_LABEL, null, null);
    return {
      budget: addressBudget("break-glass", client),
      confirm: () => Promise.resolve(breakGlassUsed(principal, request)),
    };
  }

  /** The break-glass sign-in cookie, else nobody. An expired or signed-out cookie is no credential. */
  function cookieClaim(request: Request, client: string): Claim {
    const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
    const session = cookie && adminToken ? verifySessionValue(adminToken, cookie) : null;
    if (!session) return known(addressBudget("anonymous", client), null);
    return {
      budget: addressBudget("break-glass", client),
      confirm: async () => {
        if (await deps.revocations.isRevoked(session.nonce)) return null;
        const label = sessionLabel(session.nonce);
        const principal = breakGlassPrincipal("cookie", label, session.nonce, session.expiresAt);
        return breakGlassUsed(principal, request);
      },
    };
  }

  return function claimOf(request) {
    const client = clientIp(request, config.trustProxy);
    // The proxy's word first: it may pass its own Authorization header (oauth2-proxy's ID token).
    const proxied = proxy.principalOf(request);
    if (proxied?.person) return known(personBudget(proxied.person, proxied.label), proxied);
    const authorization = request.headers.get("authorization");
    if (authorization !== null) return bearerClaim(request, authorization, client);
    const signIn = deps.signIns.sealed(request);
    if (!signIn) return cookieClaim(request, client);
    const fallback = cookieClaim(request, client);
    return {
      budget: personBudget(signIn, personLabel(signIn)),
      // An ended sign-in is no credential: then whatever else the browser carries.
      confirm: async () =>
        (await deps.signIns.records.isRevoked(signIn))
          ? fallback.confirm()
          : deps.signIns.principalOf(signIn),
    };
  };
}
