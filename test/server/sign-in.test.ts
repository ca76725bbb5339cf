/**
 * Sign-in with OpenID Connect against a real provider (oidc-provider, in-process on loopback):
 * the whole flow, roles from groups in /api/session, sign-out (and the provider's logout URL), and
 * an admin revoking a person's sign-ins on every replica.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as authLogin from "@/app/api/auth/login/route";
import * as signOut from "@/app/api/auth/sign-out/route";
import * as revoke from "@/app/api/sign-ins/revoke/route";
import * as session from "@/app/api/session/route";
import * as audit from "@/app/api/audit/route";
import type { AuditResponse, ErrorBody, SessionResponse, SignOutResponse } from "@/lib/api";
import { createConsole } from "@/lib/server/console";
import { configFor } from "@/lib/server/config";
import { setDefaultConsole } from "@/lib/server/default-console";
import { startTestProvider, TEST_PEOPLE, type TestProvider } from "../support/oidc-provider";
import { sharedUrls } from "../masters";
import { call, ORIGIN, startTestConsole, type TestConsole } from "./helpers";
import {
  beginSignIn,
  POST_LOGOUT_URI,
  refusalOf,
  signInAs,
  signInConfig,
  TEST_CLIENT,
  authorizeAtProvider,
  finishSignIn,
} from "./sign-in-helpers";

const [alice, oscar, vera, nobody] = TEST_PEOPLE as [
  (typeof TEST_PEOPLE)[0],
  (typeof TEST_PEOPLE)[0],
  (typeof TEST_PEOPLE)[0],
  (typeof TEST_PEOPLE)[0],
];

let provider: TestProvider;
let tc: TestConsole | undefined;
beforeAll(async () => {
  provider = await startTestProvider({ clients: [TEST_CLIENT] });
});
afterAll(async () => {
  await provider.stop();
});
afterEach(async () => {
  await tc?.close();
  tc = undefined;
});

const me = async (cookie: string) =>
  (await call<SessionResponse>(session.GET, "/api/session", { token: null, cookie })).body;

describe("sign-in with OpenID Connect", () => {
  it("signs a person in through the provider's login form and returns to where they started", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const { authorizationUrl, attemptCookie } = await beginSignIn("/locks/orders%3A1");
    expect(authorizationUrl.origin).toBe(provider.issuer);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    for (const param of ["state", "nonce", "code_challenge"])
      expect(authorizationUrl.searchParams.get(param)).toBeTruthy();
    expect(attemptCookie).not.toContain(authorizationUrl.searchParams.get("state")!);

    const callbackUrl = await authorizeAtProvider(authorizationUrl, alice);
    const finished = await finishSignIn(callbackUrl, attemptCookie);
    expect(finished.status).toBe(303);
    expect(finished.location.pathname).toBe("/locks/orders%3A1");
    const body = await me(finished.signInCookie!);
    expect(body).toMatchObject({
      authenticated: true,
      credential: "sign-in",
      person: {
        subject: "alice",
        issuer: provider.issuer,
        name: "Alice Admin",
        email: "alice@example.test",
      },
      role: "admin",
      signIn: { providerName: "Test IdP", loginUrl: "/api/auth/login" },
    });
  });

  // Issue 49's refuted list: no open redirect after sign-in, whatever ?next= the link carried.
  it("returns to / when ?next= would leave the console (another host, a scheme, a backslash, a tab)", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    for (const next of [
      "//evil.test/phish",
      "https://evil.test/phish",
      "/\\evil.test/phish",
      "/\t/evil.test/phish",
    ]) {
      const { authorizationUrl, attemptCookie } = await beginSignIn(next);
      const finished = await finishSignIn(
        await authorizeAtProvider(authorizationUrl, alice),
        attemptCookie,
      );
      expect(finished.status, next).toBe(303);
      expect(finished.location.href, next).toBe(`${ORIGIN}/`);
      expect(finished.signInCookie, next).toBeDefined();
    }
  });

  it("refuses a wrong password at the provider: no code comes back", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const { authorizationUrl } = await beginSignIn();
    await expect(
      authorizeAtProvider(authorizationUrl, { login: "alice", password: "guess" }),
    ).rejects.toThrow(/Wrong username or password/);
  });

  it("gives each person the grants of the rules their groups match, each role with its own scope", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer, { rbacDefaultRole: "none" }));
    const oscarSession = await me(await signInAs(oscar));
    expect(oscarSession.role).toBe("operator");
    expect(oscarSession.person?.groups).toEqual(["payments-oncall", "everyone"]);
    expect(oscarSession.grants).toEqual([
      {
        role: "operator",
        resources: null,
        services: ["payments"],
        rule: "CONSOLE_RBAC[1] (group payments-oncall)",
      },
      { role: "viewer", resources: null, services: null, rule: "CONSOLE_RBAC[2] (group everyone)" },
    ]);
    expect((await me(await signInAs(vera))).role).toBe("viewer");
    const nobodySession = await me(await signInAs(nobody));
    expect(nobodySession).toMatchObject({ authenticated: true, role: null, grants: [] });
  });

  it("reads the groups from userinfo when the ID token leaves them out", async () => {
    const lean = await startTestProvider({ clients: [TEST_CLIENT], claimsIn: "userinfo" });
    try {
      tc = startTestConsole(sharedUrls(), signInConfig(lean.issuer));
      const body = await me(await signInAs(oscar));
      expect(body.person).toMatchObject({
        name: "Oscar Oncall",
        groups: ["payments-oncall", "everyone"],
      });
      expect(body.role).toBe("operator");
    } finally {
      await lean.stop();
    }
  });

  it("applies a change of CONSOLE_RBAC to a sign-in made before it, without a new sign-in", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const cookie = await signInAs(vera);
    expect((await me(cookie)).role).toBe("viewer");
    // Another console (a restart with a new CONSOLE_RBAC) reading the same cookie.
    const promoted = createConsole(
      configFor(sharedUrls(), {
        ...signInConfig(provider.issuer),
        rbacRules: [{ group: "everyone", role: "operator", resources: ["orders:*"] }],
        logLevel: "silent",
      }),
    );
    setDefaultConsole(promoted);
    try {
      expect((await me(cookie)).grants).toEqual([
        {
          role: "operator",
          resources: ["orders:*"],
          services: null,
          rule: "CONSOLE_RBAC[0] (group everyone)",
        },
      ]);
    } finally {
      setDefaultConsole(tc.ctx);
      await promoted.close();
    }
  });

  it("refuses a sign-in cookie whose content was altered (the HMAC no longer matches)", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const cookie = await signInAs(vera);
    const [name, value] = cookie.split("=") as [string, string];
    const [payload, mac] = value.split(".") as [string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as { groups: string[] };
    claims.groups = ["sre"];
    const forged = `${name}=${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${mac}`;
    expect(await me(forged)).toMatchObject({ authenticated: false, person: null });
  });

  it("audits the sign-in with the person, their role and groups", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    await signInAs(oscar);
    const trail = await call<AuditResponse>(audit.GET, "/api/audit?limit=20");
    const entry = trail.body.entries.find(
      (candidate) => candidate.action === "sign-in" && candidate.actor.includes("Oscar"),
    );
    expect(entry?.actor).toBe("Oscar Oncall <oscar@example.test>");
    expect(entry?.detail).toContain("as operator");
    expect(entry?.detail).toContain("payments-oncall");
  });
});

describe("sign-out", () => {
  it("ends the sign-in on every replica and offers the provider's logout URL", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const cookie = await signInAs(vera);
    const out = await call<SignOutResponse>(signOut.POST, "/api/auth/sign-out", {
      method: "POST",
      token: null,
      cookie,
    });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().join("\n")).toMatch(/redlock_console_sign_in=;.*Max-Age=0/);
    const endSession = new URL(out.body.endSessionUrl!);
    expect(endSession.origin).toBe(provider.issuer);
    expect(endSession.searchParams.get("client_id")).toBe(TEST_CLIENT.clientId);
    expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(POST_LOGOUT_URI);
    // The provider accepts it: its own logout page, over HTTP.
    const atProvider = await fetch(endSession, { redirect: "manual" });
    expect(atProvider.status).toBe(200);
    expect(await atProvider.text()).toContain("logout");

    expect((await me(cookie)).authenticated).toBe(false);
    // Another replica on the same nodes refuses the cookie too.
    const replica = createConsole(
      configFor(sharedUrls(), { ...signInConfig(provider.issuer), logLevel: "silent" }),
    );
    setDefaultConsole(replica);
    try {
      expect((await me(cookie)).authenticated).toBe(false);
    } finally {
      setDefaultConsole(tc.ctx);
      await replica.close();
    }
  });

  it("refuses a sign-out from another origin", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const cookie = await signInAs(vera);
    const out = await call<ErrorBody>(signOut.POST, "/api/auth/sign-out", {
      method: "POST",
      token: null,
      cookie,
      origin: "http://evil.test",
    });
    expect(out.status).toBe(403);
    expect((await me(cookie)).authenticated).toBe(true);
  });
});

describe("revoking a person's sign-ins", () => {
  const revokeAs = (cookie: string | null, body: unknown, origin?: string | null) =>
    call<ErrorBody>(revoke.POST, "/api/sign-ins/revoke", {
      token: null,
      ...(cookie ? { cookie } : {}),
      body,
      ...(origin !== undefined ? { origin } : {}),
    });

  it("signs the person out everywhere, every sign-in of theirs, on every replica; a new sign-in works", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const admin = await signInAs(alice);
    const [laptop, phone] = [await signInAs(oscar), await signInAs(oscar)];
    const replica = createConsole(
      configFor(sharedUrls(), { ...signInConfig(provider.issuer), logLevel: "silent" }),
    );
    try {
      const answer = await revokeAs(admin, { subject: "oscar", reason: "left the payments team" });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ subject: "oscar", issuer: provider.issuer });
      for (const console of [tc.ctx, replica]) {
        setDefaultConsole(console);
        expect((await me(laptop)).authenticated).toBe(false);
        expect((await me(phone)).authenticated).toBe(false);
        expect((await me(admin)).authenticated).toBe(true);
      }
      setDefaultConsole(tc.ctx);
      expect((await me(await signInAs(oscar))).authenticated).toBe(true);
      const trail = await call<AuditResponse>(audit.GET, "/api/audit?limit=20");
      expect(trail.body.entries.find((entry) => entry.action === "revoke-sign-ins")).toMatchObject({
        actor: "Alice Admin <alice@example.test>",
        reason: "left the payments team",
      });
    } finally {
      setDefaultConsole(tc.ctx);
      await replica.close();
    }
  });

  it("refuses without a credential, with too small a role, from another origin, and hostile input", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const target = await signInAs(vera);
    const body = { subject: "vera", reason: "testing the refusals" };
    expect((await revokeAs(null, body)).status).toBe(401);
    const operator = await revokeAs(await signInAs(oscar), body);
    expect(operator.status).toBe(403);
    expect(operator.body.error.code).toBe("forbidden");
    const admin = await signInAs(alice);
    expect((await revokeAs(admin, body, "http://evil.test")).body.error.code).toBe("cross_origin");
    for (const hostile of [
      { subject: "", reason: "empty subject" },
      { subject: "vera" },
      { subject: "vera", reason: "x" },
      { subject: "vera", reason: "extra field", issuer: "http://elsewhere" },
      { subject: "v".repeat(600), reason: "too long" },
      ["vera"],
    ]) {
      const refused = await revokeAs(admin, hostile);
      expect(refused.status, JSON.stringify(hostile)).toBe(400);
    }
    expect((await me(target)).authenticated).toBe(true);
  });
});

describe("the login page's sign-in link", () => {
  it("is absent when no provider is configured, and the sign-in start says so", async () => {
    tc = startTestConsole(sharedUrls());
    expect(
      (await call<SessionResponse>(session.GET, "/api/session", { token: null })).body.signIn,
    ).toBeNull();
    const started = await call(authLogin.GET, "/api/auth/login", { token: null });
    expect(started.status).toBe(303);
    expect(started.headers.get("location")).toBe("/login?sign_in_error=not_configured");
  });
});

describe("refusals at the callback", () => {
  it("sends the browser back to /login when the attempt cookie is missing", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const { authorizationUrl } = await beginSignIn();
    const callbackUrl = await authorizeAtProvider(authorizationUrl, vera);
    expect(refusalOf(await finishSignIn(callbackUrl, ""))).toMatchObject({
      path: "/login",
      error: "attempt_expired",
    });
  });
});
