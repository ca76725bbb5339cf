import "server-only";
/**
 * The console as an OpenID Connect relying party, on openid-client v6 (OpenID Certified; its
 * oauth4webapi core does the checks): authorization code with PKCE (S256), state and nonce, and an
 * ID token validated for issuer, audience, expiry and nonce, and its signature against the
 * provider's JWKS (enableNonRepudiationChecks: without it the library trusts the TLS channel of the
 * token endpoint and skips the signature). The provider's discovery document is read once an hour;
 * a failed read is retried on the next sign-in, never cached.
 */
import * as client from "openid-client";
import type { OidcSettings } from "../../oidc-config";
import type { Attempt } from "./cookies";

/** The provider could not be reached (discovery, token endpoint, JWKS or userinfo). */
export class ProviderUnreachableError extends Error {
  override name = "ProviderUnreachableError";
}

/** The provider answered, but the answer is refused (a check failed, or it said no). */
export class SignInRefusedError extends Error {
  override name = "SignInRefusedError";
}

/** Who signed in, as the provider says it, with the groups re-read at this sign-in. */
export interface SignedInPerson {
  readonly issuer: string;
  readonly subject: string;
  readonly name: string | null;
  readonly email: string | null;
  readonly groups: string[];
}

const DISCOVERY_MAX_AGE_MS = 3_600_000;
const PROVIDER_TIMEOUT_S = 10;
const MAX_GROUPS = 1_000;

/** A failure to reach the provider, as fetch reports it (refused, reset, DNS, timeout). */
function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "TimeoutError" || error.name === "AbortError") return true;
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}

/**
 * The library's message with the check that failed (its cause: `unexpected JWT "aud" (audience)
 * claim value`), or the provider's own error code and description when it said no.
 */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { cause } = error;
  if (cause instanceof Error) return `${error.message}: ${cause.message}`;
  const { error: code, error_description: description } = (cause ?? {}) as {
    error?: unknown;
    error_description?: unknown;
  };
  const said = [code, description].filter((part) => typeof part === "string").join(": ");
  return said ? `${error.message} (${said})` : error.message;
}

function stringClaim(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value.slice(0, 512) : null;
}

/** A groups claim as an array of names; a single string (some providers) is one group. */
function groupsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return list.filter((item): item is string => typeof item === "string").slice(0, MAX_GROUPS);
}

export interface OidcClient {
  /** The provider's authorization URL for a new attempt, and the attempt to keep in its cookie. */
  begin(next: string): Promise<{ url: URL; attempt: Omit<Attempt, "expiresAt"> }>;
  /** Checks the provider's answer at the callback and exchanges the code; who signed in. */
  finish(callbackUrl: URL, attempt: Attempt): Promise<SignedInPerson>;
  /** RP-initiated logout at the provider, when it offers end_session_endpoint; else null. */
  endSessionUrl(postLogoutRedirectUri: string): Promise<string | null>;
}

export function createOidcClient(settings: OidcSettings): OidcClient {
  let discovered: { at: number; configuration: Promise<client.Configuration> } | null = null;
  const insecure = new URL(settings.issuer).protocol === "http:"; // loopback only (oidc-config.ts)

  function configuration(): Promise<client.Configuration> {
    if (discovered && Date.now() - discovered.at < DISCOVERY_MAX_AGE_MS) {
      return discovered.configuration;
    }
    const pending = client
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        client.ClientSecretBasic(settings.clientSecret),
        {
          execute: [
            client.enableNonRepudiationChecks,
            ...(insecure ? [client.allowInsecureRequests] : []),
          ],
          timeout: PROVIDER_TIMEOUT_S,
        },
      )
      .catch((error: unknown) => {
        discovered = null;
        throw isNetworkError(error)
          ? new ProviderUnreachableError(`${settings.issuer}: ${describe(error)}`)
          : new SignInRefusedError(`discovery of ${settings.issuer}: ${describe(error)}`);
      });
    discovered = { at: Date.now(), configuration: pending };
    return pending;
  }

  async function claimsOf(
    config: client.Configuration,
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  ): Promise<SignedInPerson> {
    const idToken = tokens.claims();
    if (!idToken) throw new SignInRefusedError("the provider sent no ID token");
    let claims: Record<string, unknown> = idToken;
    const missing = [settings.groupsClaim, "name", "email"].some((name) => !(name in idToken));
    if (missing && tokens.access_token) {
      // What the ID token leaves out (many providers keep it small), from userinfo.
      const userinfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
      claims = { ...userinfo, ...idToken };
    }
    return {
      issuer: idToken.iss,
      subject: idToken.sub,
      name: stringClaim(claims.name),
      email: stringClaim(claims.email),
      groups: groupsOf(claims[settings.groupsClaim]),
    };
  }

  return {
    async begin(next) {
      const config = await configuration();
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      return { url, attempt: { state, nonce, verifier, next } };
    },
    async finish(callbackUrl, attempt) {
      const config = await configuration();
      try {
        const tokens = await client.authorizationCodeGrant(
          config,
          callbackUrl,
          {
            pkceCodeVerifier: attempt.verifier,
            expectedState: attempt.state,
            expectedNonce: attempt.nonce,
            idTokenExpected: true,
          },
          { redirect_uri: settings.redirectUri },
        );
        return await claimsOf(config, tokens);
      } catch (error) {
        if (error instanceof SignInRefusedError) throw error;
        if (isNetworkError(error)) throw new ProviderUnreachableError(describe(error));
        throw new SignInRefusedError(describe(error));
      }
    },
    async endSessionUrl(postLogoutRedirectUri) {
      try {
        const config = await configuration();
        if (!config.serverMetadata().end_session_endpoint) return null;
        return client
          .buildEndSessionUrl(config, { post_logout_redirect_uri: postLogoutRedirectUri })
          .toString();
      } catch {
        // The provider is down: the console's own sign-out still holds.
        return null;
      }
    },
  };
}
