/**
 * Drives a sign-in as a browser would: the console's route handlers on one side, the real provider
 * over HTTP on the other (redirects followed by hand, its cookies kept in a jar, its login form
 * filled in and submitted).
 */
import { expect } from "vitest";
import * as callback from "@/app/api/auth/callback/route";
import * as authLogin from "@/app/api/auth/login/route";
import type { RbacRule } from "@/lib/server/rbac-config";
import { oidcSettingsOf, type OidcSettings } from "@/lib/server/oidc-config";
import type { ConsoleConfig } from "@/lib/server/config";
import type { TestPerson } from "../support/oidc-provider";
import { call, ORIGIN } from "./helpers";

export const CLIENT_ID = "redlock-console";
export const CLIENT_SECRET = "test-client-secret-0123456789abcdef";
export const REDIRECT_URI = `${ORIGIN}/api/auth/callback`;
export const POST_LOGOUT_URI = `${ORIGIN}/login?signed_out=1`;
export const TEST_CLIENT = {
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  redirectUris: [REDIRECT_URI],
  postLogoutRedirectUris: [POST_LOGOUT_URI],
};

export const RULES: RbacRule[] = [
  { group: "sre", role: "admin" },
  { group: "payments-oncall", role: "operator", services: ["payments"] },
  { group: "everyone", role: "viewer" },
];

export function oidcSettings(issuer: string): OidcSettings {
  return oidcSettingsOf({
    CONSOLE_OIDC_ISSUER: issuer,
    CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
    CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    CONSOLE_PUBLIC_URL: ORIGIN,
    CONSOLE_OIDC_SCOPES: "openid profile email groups",
    CONSOLE_OIDC_GROUPS_CLAIM: "groups",
    CONSOLE_OIDC_PROVIDER_NAME: "Test IdP",
    CONSOLE_SIGN_IN_SECRET: undefined,
  })!;
}

export function signInConfig(issuer: string, overrides: Partial<ConsoleConfig> = {}) {
  return { oidc: oidcSettings(issuer), rbacRules: RULES, ...overrides };
}

/** The first `name=value` of a response's Set-Cookie headers for `name`. */
export function cookieFrom(headers: Headers, name: string): string | undefined {
  return headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .find((pair) => pair.startsWith(`${name}=`));
}

export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const [name = "", ...value] = pair.split("=");
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value.join("="));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

export interface Started {
  readonly authorizationUrl: URL;
  /** `redlock_console_sign_in_attempt=…`, as the browser would send it to the callback. */
  readonly attemptCookie: string;
}

export async function beginSignIn(next = "/"): Promise<Started> {
  const started = await call(authLogin.GET, `/api/auth/login?next=${encodeURIComponent(next)}`, {
    token: null,
  });
  expect(started.status).toBe(303);
  const attemptCookie = cookieFrom(started.headers, "redlock_console_sign_in_attempt");
  expect(attemptCookie).toBeDefined();
  return {
    authorizationUrl: new URL(started.headers.get("location")!),
    attemptCookie: attemptCookie!,
  };
}

/**
 * Follows the provider's redirects, fills in its login form, and returns the URL it sends the
 * browser back to (the console's callback, with code and state).
 */
export async function authorizeAtProvider(
  authorizationUrl: URL,
  person: Pick<TestPerson, "login" | "password">,
  jar = new CookieJar(),
): Promise<URL> {
  let url = authorizationUrl;
  let init: RequestInit = {};
  for (let hop = 0; hop < 12; hop += 1) {
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    });
    jar.store(response.headers);
    init = {};
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      url = new URL(location, url);
      if (url.href.startsWith(REDIRECT_URI)) return url;
      continue;
    }
    const html = await response.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (response.status !== 200 || !action || html.includes("Wrong username")) {
      throw new Error(`the provider answered ${response.status}: ${html.slice(0, 300)}`);
    }
    url = new URL(action, url);
    init = {
      method: "POST",
      body: new URLSearchParams({ login: person.login, password: person.password }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    };
  }
  throw new Error("too many redirects at the provider");
}

export interface Finished {
  readonly status: number;
  /** Where the console sends the browser: the `next` path, or /login?sign_in_error=… */
  readonly location: URL;
  readonly signInCookie: string | undefined;
}

export async function finishSignIn(callbackUrl: URL, attemptCookie: string): Promise<Finished> {
  const done = await call(callback.GET, `${callbackUrl.pathname}${callbackUrl.search}`, {
    token: null,
    cookie: attemptCookie,
  });
  return {
    status: done.status,
    location: new URL(done.headers.get("location") ?? "/", ORIGIN),
    signInCookie: cookieFrom(done.headers, "redlock_console_sign_in"),
  };
}

/** A whole sign-in; the sign-in cookie (`redlock_console_sign_in=…`). */
export async function signInAs(person: Pick<TestPerson, "login" | "password">): Promise<string> {
  const { authorizationUrl, attemptCookie } = await beginSignIn();
  const finished = await finishSignIn(
    await authorizeAtProvider(authorizationUrl, person),
    attemptCookie,
  );
  expect(finished.location.searchParams.get("detail")).toBeNull();
  expect(finished.signInCookie).toBeDefined();
  return finished.signInCookie!;
}

/** The refusal's reason and detail from `/login?sign_in_error=…&detail=…`. */
export function refusalOf(finished: Pick<Finished, "location">) {
  return {
    path: finished.location.pathname,
    error: finished.location.searchParams.get("sign_in_error"),
    detail: finished.location.searchParams.get("detail") ?? "",
  };
}
