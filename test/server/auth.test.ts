import { afterEach, describe, expect, it } from "vitest";
import * as health from "@/app/api/health/route";
import * as locks from "@/app/api/locks/route";
import * as nodesRoute from "@/app/api/nodes/route";
import * as session from "@/app/api/session/route";
import type { ErrorBody, SessionResponse } from "@/lib/api";
import type { ConsoleConfig } from "@/lib/server/config";
import { sharedUrls } from "../cluster";
import { ADMIN_TOKEN, call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole | undefined;
const open = (overrides: Partial<ConsoleConfig> = {}) =>
  (tc = startTestConsole(sharedUrls(), overrides));
afterEach(async () => {
  await tc?.close();
  tc = undefined;
});

async function login(token = ADMIN_TOKEN, headers: Record<string, string> = {}) {
  return call<SessionResponse | ErrorBody>(session.POST, "/api/session", {
    body: { token },
    token: null,
    headers,
  });
}

const cookieOf = (setCookie: string | null) => setCookie!.split(";")[0]!;

describe("browser sessions", () => {
  it("logs in with the admin token: HttpOnly, SameSite=Strict cookie that authorises actions", async () => {
    const { prefix } = open();
    const response = await login();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ authenticated: true, canWrite: true });
    const setCookie = response.headers.get("set-cookie")!;
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).not.toContain(ADMIN_TOKEN);

    const cookie = cookieOf(setCookie);
    const me = await call<SessionResponse>(session.GET, "/api/session", { token: null, cookie });
    expect(me.body).toMatchObject({ authenticated: true, readOnly: false });
    const acquired = await call(locks.POST, "/api/locks", {
      token: null,
      cookie,
      body: { resources: [`${prefix}s`], ttlMs: 1_000 },
    });
    expect(acquired.status).toBe(201);
  });

  it("refuses a cookie-authenticated action without a same-origin Origin (CSRF)", async () => {
    const { prefix } = open();
    const cookie = cookieOf((await login()).headers.get("set-cookie"));
    const body = { resources: [`${prefix}csrf`], ttlMs: 1_000 };
    for (const origin of [null, "http://evil.test"]) {
      const response = await call<ErrorBody>(locks.POST, "/api/locks", {
        token: null,
        cookie,
        origin,
        body,
      });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe("cross_origin");
    }
  });

  it("logs out: the cookie is cleared and no longer accepted", async () => {
    open();
    const cookie = cookieOf((await login()).headers.get("set-cookie"));
    const out = await call<SessionResponse>(session.DELETE, "/api/session", {
      method: "DELETE",
      token: null,
      cookie,
    });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    const me = await call<SessionResponse>(session.GET, "/api/session", { token: null, cookie });
    expect(me.body.authenticated).toBe(false);
  });

  it("rate-limits failed logins per client with 429 and Retry-After, even for the right token", async () => {
    open();
    const client = { "x-forwarded-for": "203.0.113.9" };
    for (let attempt = 0; attempt < 5; attempt += 1)
      expect((await login("wrong-token-guess-000", client)).status).toBe(401);
    const blocked = await login(ADMIN_TOKEN, client);
    expect(blocked.status).toBe(429);
    expect((blocked.body as ErrorBody).error.code).toBe("rate_limited");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await login(ADMIN_TOKEN, { "x-forwarded-for": "198.51.100.1" })).status).toBe(200);
  });
});

describe("read access and read-only mode", () => {
  it("closes reads without a credential when CONSOLE_PUBLIC_READ is false; health stays open", async () => {
    open({ publicRead: false });
    expect((await call(nodesRoute.GET, "/api/nodes", { token: null })).status).toBe(401);
    expect((await call(nodesRoute.GET, "/api/nodes")).status).toBe(200);
    expect((await call(health.GET, "/api/health", { token: null })).status).toBe(200);
  });

  it("answers 401 to a wrong bearer token even on an open read route", async () => {
    open();
    const response = await call<ErrorBody>(nodesRoute.GET, "/api/nodes", {
      token: "not-the-token",
    });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("unauthorized");
  });

  it("refuses every state-changing route in read-only mode, but still lets operators log in to read", async () => {
    const { prefix } = open({ readOnly: true });
    const response = await call<ErrorBody>(locks.POST, "/api/locks", {
      body: { resources: [`${prefix}ro`], ttlMs: 1_000 },
    });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("read_only");
    const loggedIn = await login();
    expect(loggedIn.body).toMatchObject({ authenticated: true, canWrite: false, readOnly: true });
  });

  it("accepts an Origin listed in CONSOLE_ALLOWED_ORIGINS", async () => {
    const { prefix } = open({ allowedOrigins: ["https://ops.example"] });
    const response = await call(locks.POST, "/api/locks", {
      origin: "https://ops.example",
      body: { resources: [`${prefix}ao`], ttlMs: 1_000 },
    });
    expect(response.status).toBe(201);
  });
});
