/**
 * What the sign-in refuses, each against the real provider: a state, nonce or PKCE verifier that is
 * not the attempt's; an ID token for another audience, from another issuer, expired, or with a bad
 * signature (the real token altered in one place by a proxy in front of the token endpoint, and
 * re-signed with the provider's own key so that only that one thing is wrong); the provider down.
 */
import { generateKeyPairSync } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as locks from "@/app/api/locks/route";
import * as session from "@/app/api/session/route";
import type { SessionResponse } from "@/lib/api";
import { attemptSchema, seal, unseal } from "@/lib/server/auth/sign-in/cookies";
import {
  decodeJwt,
  signJwt,
  startTestProvider,
  TEST_PEOPLE,
  type TestProvider,
  type TokenResponse,
} from "../support/oidc-provider";
import { sharedUrls } from "../masters";
import { ADMIN_TOKEN, call, startTestConsole, type TestConsole } from "./helpers";
import {
  authorizeAtProvider,
  beginSignIn,
  CLIENT_SECRET,
  finishSignIn,
  refusalOf,
  signInConfig,
  TEST_CLIENT,
} from "./sign-in-helpers";

const vera = TEST_PEOPLE[2]!;
let provider: TestProvider;
let tc: TestConsole | undefined;
beforeAll(async () => {
  provider = await startTestProvider({ clients: [TEST_CLIENT] });
});
afterAll(async () => {
  await provider.stop();
});
afterEach(async () => {
  provider.alterTokenResponse = undefined;
  await tc?.close();
  tc = undefined;
});

/** Runs a sign-in whose attempt cookie is rewritten by `alter` before the callback. */
async function withAttempt(alter: (attempt: ReturnType<typeof attemptSchema.parse>) => void) {
  const { authorizationUrl, attemptCookie } = await beginSignIn();
  const [name, value] = attemptCookie.split("=") as [string, string];
  const attempt = unseal(CLIENT_SECRET, "attempt", attemptSchema, value)!;
  alter(attempt);
  const forged = `${name}=${seal(CLIENT_SECRET, "attempt", attempt)}`;
  return finishSignIn(await authorizeAtProvider(authorizationUrl, vera), forged);
}

/** Runs a sign-in whose ID token the proxy alters: claims changed, then re-signed by `signer`. */
async function withIdToken(
  change: (claims: Record<string, unknown>) => void,
  signer: (header: Record<string, unknown>, claims: Record<string, unknown>) => string = (
    header,
    claims,
  ) => provider.signAsProvider(header, claims),
) {
  provider.alterTokenResponse = (body: TokenResponse) => {
    const { header, claims } = decodeJwt(body.id_token!);
    change(claims);
    return { ...body, id_token: signer(header, claims) };
  };
  const { authorizationUrl, attemptCookie } = await beginSignIn();
  return finishSignIn(await authorizeAtProvider(authorizationUrl, vera), attemptCookie);
}

describe("the attempt's checks", () => {
  it("refuses a callback whose state is not the attempt's", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const { authorizationUrl, attemptCookie } = await beginSignIn();
    const callbackUrl = await authorizeAtProvider(authorizationUrl, vera);
    callbackUrl.searchParams.set("state", "an-attackers-state");
    const finished = await finishSignIn(callbackUrl, attemptCookie);
    expect(finished.signInCookie).toBeUndefined();
    expect(refusalOf(finished)).toMatchObject({
      error: "refused",
      detail: expect.stringMatching(/state/),
    });
  });

  it("refuses an ID token whose nonce is not the attempt's", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const finished = await withAttempt((attempt) => (attempt.nonce = "another-attempts-nonce"));
    expect(finished.signInCookie).toBeUndefined();
    expect(refusalOf(finished)).toMatchObject({
      error: "refused",
      detail: expect.stringMatching(/nonce/),
    });
  });

  it("is refused by the provider when the PKCE verifier is not the one the challenge was made from", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    provider.tokenErrors.length = 0;
    const finished = await withAttempt((attempt) => (attempt.verifier = "x".repeat(43)));
    expect(finished.signInCookie).toBeUndefined();
    expect(refusalOf(finished)).toMatchObject({
      error: "refused",
      detail: expect.stringMatching(/invalid_grant/),
    });
    expect(provider.tokenErrors).toEqual([
      "invalid_grant: code_verifier does not match code_challenge",
    ]);
  });

  it("refuses an attempt cookie made with another secret", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const { authorizationUrl, attemptCookie } = await beginSignIn();
    const [name, value] = attemptCookie.split("=") as [string, string];
    const attempt = unseal(CLIENT_SECRET, "attempt", attemptSchema, value)!;
    const forged = `${name}=${seal("another-secret-of-enough-length-000", "attempt", attempt)}`;
    const finished = await finishSignIn(await authorizeAtProvider(authorizationUrl, vera), forged);
    expect(refusalOf(finished).error).toBe("attempt_expired");
  });
});

describe("the ID token's checks", () => {
  it("accepts the provider's token re-signed unchanged by the proxy (the alterations below change one thing)", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const finished = await withIdToken(() => undefined);
    expect(refusalOf(finished).error).toBeNull();
    expect(finished.signInCookie).toBeDefined();
  });

  it("refuses an ID token for another audience", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const finished = await withIdToken((claims) => (claims.aud = "another-client"));
    expect(finished.signInCookie).toBeUndefined();
    expect(refusalOf(finished)).toMatchObject({
      error: "refused",
      detail: expect.stringMatching(/"aud"/),
    });
  });

  it("refuses an ID token from another issuer", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const finished = await withIdToken((claims) => (claims.iss = "https://another-issuer.test"));
    expect(finished.signInCookie).toBeUndefined();
    expect(refusalOf(finished)).toMatchObject({
      error: "refused",
      detail: expect.stringMatching(/"iss"/),
    });
  });

  it("refuses an expired ID token", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const nowS = Math.floor(Date.now() / 1000);
    const finished = await withIdToken((claims) => {
      claims.iat = nowS - 600;
      claims.exp = nowS - 300;
    });
    expect(finished.signInCookie).toBeUndefined();
    expect(refusalOf(finished)).toMatchObject({
      error: "refused",
      detail: expect.stringMatching(/"exp"/),
    });
  });

  it("refuses an ID token signed with a key that is not in the provider's JWKS", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const finished = await withIdToken(
      () => undefined,
      (header, claims) => signJwt(privateKey.export({ format: "jwk" }), header, claims),
    );
    expect(finished.signInCookie).toBeUndefined();
    expect(refusalOf(finished)).toMatchObject({
      error: "refused",
      detail: expect.stringMatching(/signature/),
    });
  });

  it("refuses an ID token whose payload was changed after the provider signed it", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    provider.alterTokenResponse = (body) => {
      const [header, , signature] = body.id_token!.split(".");
      const { claims } = decodeJwt(body.id_token!);
      const payload = Buffer.from(JSON.stringify({ ...claims, groups: ["sre"] })).toString(
        "base64url",
      );
      return { ...body, id_token: `${header}.${payload}.${signature}` };
    };
    const { authorizationUrl, attemptCookie } = await beginSignIn();
    const finished = await finishSignIn(
      await authorizeAtProvider(authorizationUrl, vera),
      attemptCookie,
    );
    expect(finished.signInCookie).toBeUndefined();
    expect(refusalOf(finished)).toMatchObject({
      error: "refused",
      detail: expect.stringMatching(/signature/),
    });
  });
});

describe("the provider down", () => {
  it("says so on the login page, and the break-glass token still works", async () => {
    const gone = await startTestProvider({ clients: [TEST_CLIENT] });
    await gone.stop();
    const { prefix } = (tc = startTestConsole(sharedUrls(), signInConfig(gone.issuer)));
    const started = await call(
      (await import("@/app/api/auth/login/route")).GET,
      "/api/auth/login",
      { token: null },
    );
    expect(started.status).toBe(303);
    const location = new URL(started.headers.get("location")!, "http://console.test");
    expect(location.pathname).toBe("/login");
    expect(location.searchParams.get("sign_in_error")).toBe("provider_unreachable");
    expect(location.searchParams.get("detail")).toContain(gone.issuer);

    const acquired = await call(locks.POST, "/api/locks", {
      body: { resources: [`${prefix}glass`], ttlMs: 5_000 },
    });
    expect(acquired.status).toBe(201);
    const login = await call<SessionResponse>(session.POST, "/api/session", {
      body: { token: ADMIN_TOKEN },
      token: null,
    });
    expect(login.body).toMatchObject({
      authenticated: true,
      credential: "break-glass",
      role: "admin",
    });
  });

  it("says so when the provider goes down between the login form and the callback", async () => {
    const flaky = await startTestProvider({ clients: [TEST_CLIENT] });
    tc = startTestConsole(sharedUrls(), signInConfig(flaky.issuer));
    const { authorizationUrl, attemptCookie } = await beginSignIn();
    const callbackUrl = await authorizeAtProvider(authorizationUrl, vera);
    await flaky.stop();
    const finished = await finishSignIn(callbackUrl, attemptCookie);
    expect(refusalOf(finished)).toMatchObject({ path: "/login", error: "provider_unreachable" });
  });
});
