import "server-only";
/**
 * A person's sign-in with OpenID Connect: GET /api/auth/login sends the browser to the provider
 * with a new attempt (its cookie), GET /api/auth/callback checks the answer and sets the sign-in
 * cookie, the guard turns that cookie into a Principal at each request (grants from the groups it
 * carries, under the CONSOLE_RBAC of the moment), and sign-out or an admin's revocation end it on
 * every replica (records.ts). Failures send the browser to /login with a reason it shows in words.
 */
import { randomBytes } from "node:crypto";
import type { ConsoleConfig } from "../../config";
import { logger } from "../../logger";
import { personLabel, type Person, type Principal } from "../identity";
import { readCookie } from "../credentials";
import { grantsFor } from "../rbac";
import {
  ATTEMPT_COOKIE,
  ATTEMPT_TTL_S,
  attemptSchema,
  CALLBACK_PATH,
  cookieHeader,
  seal,
  SIGN_IN_COOKIE,
  signInSchema,
  unseal,
  type SignIn,
} from "./cookies";
import {
  createOidcClient,
  ProviderUnreachableError,
  type OidcClient,
  type SignedInPerson,
} from "./oidc-client";
import type { SignInRecords } from "./records";

/** Why a sign-in did not happen, as /login?sign_in_error= names it. */
export type SignInFailure =
  | "not_configured"
  | "provider_unreachable"
  | "refused"
  | "provider_said_no"
  | "attempt_expired"
  | "nodes_unavailable";

export interface SignIns {
  /** The request's sign-in; null without one, or when it expired, ended or was revoked. */
  current(request: Request): Promise<SignIn | null>;
  /**
   * The request's sign-in as its cookie's seal proves it (no node read): the first half of
   * `current`, for charging the person's read budget before the nodes are asked whether it ended.
   */
  sealed(request: Request): SignIn | null;
  principalOf(signIn: SignIn): Principal;
  /** GET /api/auth/login: a redirect to the provider (or to /login saying why not). */
  begin(request: Request): Promise<Response>;
  /** GET /api/auth/callback: checks, sets the sign-in cookie, redirects to where it began. */
  finish(request: Request): Promise<{ response: Response; signIn: SignIn | null }>;
  /** Ends the request's sign-in; the cookie to clear it and the provider's logout URL, if any. */
  signOut(request: Request): Promise<{
    signIn: SignIn | null;
    setCookie: string;
    endSessionUrl: string | null;
    storedOn: string[];
  }>;
  readonly records: SignInRecords;
}

/** A path of this console only: a crafted `next` must not send the person elsewhere. */
export function safeNextPath(next: string | null): string {
  // eslint-disable-next-line no-control-regex -- browsers drop tabs and newlines inside URLs
  if (!next || !next.startsWith("/") || /^\/[/\\]|[\\\x00-\x1f\x7f]/.test(next)) return "/";
  return next.slice(0, 2048);
}

function redirect(location: string, setCookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of setCookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

function toLogin(failure: SignInFailure, detail?: string): Response {
  const query = new URLSearchParams({ sign_in_error: failure });
  if (detail) query.set("detail", detail.slice(0, 300));
  return redirect(`/login?${query}`);
}

export function createSignIns(
  config: Pick<ConsoleConfig, "oidc" | "signInTtlS" | "rbacRules" | "rbacDefaultRole">,
  records: SignInRecords,
): SignIns {
  const settings = config.oidc;
  const oidc: OidcClient | null = settings && createOidcClient(settings);
  const secure = settings?.publicUrl.startsWith("https:") ?? false;
  const clearAttempt = cookieHeader(ATTEMPT_COOKIE, "", {
    path: CALLBACK_PATH,
    maxAgeS: 0,
    secure,
  });
  const clearSignIn = cookieHeader(SIGN_IN_COOKIE, "", { path: "/", maxAgeS: 0, secure });

  function sealed(request: Request): SignIn | null {
    if (!settings) return null;
    const cookie = readCookie(request.headers.get("cookie"), SIGN_IN_COOKIE);
    const signIn = unseal(settings.cookieSecret, "sign-in", signInSchema, cookie);
    return signIn && signIn.issuer === settings.issuer ? signIn : null;
  }

  async function current(request: Request): Promise<SignIn | null> {
    const signIn = sealed(request);
    if (!signIn) return null;
    return (await records.isRevoked(signIn)) ? null : signIn;
  }

  async function finish(request: Request) {
    if (!settings || !oidc) return { response: toLogin("not_configured"), signIn: null };
    const cookie = readCookie(request.headers.get("cookie"), ATTEMPT_COOKIE);
    const attempt = unseal(settings.cookieSecret, "attempt", attemptSchema, cookie);
    const query = new URL(request.url).search;
    const said = new URLSearchParams(query).get("error");
    if (said) {
      const description = new URLSearchParams(query).get("error_description");
      return { response: toLogin("provider_said_no", description ?? said), signIn: null };
    }
    if (!attempt) return { response: toLogin("attempt_expired"), signIn: null };
    let person: SignedInPerson;
    try {
      // The redirect URI as registered, with the provider's answer: never this request's own host.
      person = await oidc.finish(new URL(`${settings.redirectUri}${query}`), attempt);
    } catch (error) {
      const unreachable = error instanceof ProviderUnreachableError;
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ reason: message }, "sign-in refused");
      return {
        response: toLogin(unreachable ? "provider_unreachable" : "refused", message),
        signIn: null,
      };
    }
    const generation = await records.generationOf(person.issuer, person.subject);
    if (generation === null) return { response: toLogin("nodes_unavailable"), signIn: null };
    const issuedAt = Date.now();
    const signIn: SignIn = {
      ...person,
      id: randomBytes(16).toString("base64url"),
      issuedAt,
      expiresAt: issuedAt + config.signInTtlS * 1000,
      generation,
    };
    const value = seal(settings.cookieSecret, "sign-in", signIn);
    const setCookie = cookieHeader(SIGN_IN_COOKIE, value, {
      path: "/",
      maxAgeS: config.signInTtlS,
      secure,
    });
    return { response: redirect(attempt.next, [clearAttempt, setCookie]), signIn };
  }

  return {
    records,
    current,
    sealed,
    principalOf(signIn) {
      const person: Person = {
        subject: signIn.subject,
        issuer: signIn.issuer,
        name: signIn.name,
        email: signIn.email,
        groups: signIn.groups,
      };
      return {
        kind: "sign-in",
        carrier: "cookie",
        label: personLabel(person),
        person,
        // At each request: a change of CONSOLE_RBAC applies at once, without a new sign-in.
        grants: grantsFor(signIn.groups, config.rbacRules, config.rbacDefaultRole),
        credentialId: signIn.id,
        tokenName: null,
        expiresAt: signIn.expiresAt,
      };
    },
    async begin(request) {
      if (!settings || !oidc) return toLogin("not_configured");
      const next = safeNextPath(new URL(request.url).searchParams.get("next"));
      try {
        const { url, attempt } = await oidc.begin(next);
        const expiresAt = Date.now() + ATTEMPT_TTL_S * 1000;
        const value = seal(settings.cookieSecret, "attempt", { ...attempt, expiresAt });
        const setCookie = cookieHeader(ATTEMPT_COOKIE, value, {
          path: CALLBACK_PATH,
          maxAgeS: ATTEMPT_TTL_S,
          secure,
        });
        return redirect(url.toString(), [setCookie]);
      } catch (error) {
        const unreachable = error instanceof ProviderUnreachableError;
        const message = error instanceof Error ? error.message : String(error);
        logger.warn({ reason: message }, "sign-in could not start");
        return toLogin(unreachable ? "provider_unreachable" : "refused", message);
      }
    },
    finish,
    async signOut(request) {
      const signIn = await current(request);
      const storedOn = signIn ? await records.signOut(signIn) : [];
      const endSessionUrl =
        signIn && oidc && settings
          ? await oidc.endSessionUrl(`${settings.publicUrl}/login?signed_out=1`)
          : null;
      return { signIn, setCookie: clearSignIn, endSessionUrl, storedOn };
    },
  };
}
