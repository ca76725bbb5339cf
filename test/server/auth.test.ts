import { afterEach, describe, expect, it } from "vitest";
import * as events from "@/app/api/events/route";
import * as eventStream from "@/app/api/events/stream/route";
import * as health from "@/app/api/health/route";
import * as locks from "@/app/api/locks/route";
import * as nodesRoute from "@/app/api/nodes/route";
import * as session from "@/app/api/session/route";
import type { ErrorBody, SessionResponse } from "@/lib/api";
import { PEER_ADDRESS_HEADER } from "@/lib/server/auth/client-info";
import type { ConsoleConfig } from "@/lib/server/config";
import { createConsole } from "@/lib/server/console";
import { logout } from "@/lib/server/auth/login-session";
import { sharedUrls } from "../masters";
import { ADMIN_TOKEN, buildRequest, call, startTestConsole, type TestConsole } from "./helpers";

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
    const client = { [PEER_ADDRESS_HEADER]: "203.0.113.9" };
    for (let attempt = 0; attempt < 10; attempt += 1)
      expect((await login("wrong-token-guess-000", client)).status).toBe(401);
    const blocked = await login(ADMIN_TOKEN, client);
    expect(blocked.status).toBe(429);
    expect((blocked.body as ErrorBody).error.code).toBe("rate_limited");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await login(ADMIN_TOKEN, { [PEER_ADDRESS_HEADER]: "198.51.100.1" })).status).toBe(200);
  });
});

describe("read access and read-only mode", () => {
  it("closes reads without a credential when CONSOLE_PUBLIC_READ is false; health stays open", async () => {
    open({ publicRead: false });
    expect((await call(nodesRoute.GET, "/api/nodes", { token: null })).status).toBe(401);
    expect((await call(nodesRoute.GET, "/api/nodes")).status).toBe(200);
    expect((await call(health.GET, "/api/health", { token: null })).status).toBe(200);
  });

  it("closes the lock history and its live stream like any read", async () => {
    open({ publicRead: false });
    expect((await call(events.GET, "/api/events", { token: null })).status).toBe(401);
    expect((await call(eventStream.GET, "/api/events/stream", { token: null })).status).toBe(401);
    expect((await call(events.GET, "/api/events", { token: "wrong" })).status).toBe(401);
    expect((await call(events.GET, "/api/events")).status).toBe(200);
    // Both are reads: no other method is served.
    for (const route of [events, eventStream])
      expect((await call(route.POST, "/api/events", { body: {} })).status).toBe(405);
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

describe("hardening of credentials (issue 11)", () => {
  const peer = (address: string) => ({ [PEER_ADDRESS_HEADER]: address });

  it("throttles wrong bearer tokens per client with 429, on every route, leaving other clients alone", async () => {
    open();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const response = await call(nodesRoute.GET, "/api/nodes", {
        token: `guess-${attempt}`,
        headers: peer("203.0.113.20"),
      });
      expect(response.status).toBe(401);
    }
    for (const [handler, path] of [
      [nodesRoute.GET, "/api/nodes"],
      [locks.GET, "/api/locks"],
    ] as const) {
      const blocked = await call<ErrorBody>(handler, path, { headers: peer("203.0.113.20") });
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe("rate_limited");
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect((await login(ADMIN_TOKEN, peer("203.0.113.20"))).status).toBe(429);
    expect(
      (await call(nodesRoute.GET, "/api/nodes", { headers: peer("203.0.113.21") })).status,
    ).toBe(200);
  });

  it("never lets anonymous clients lock the admin out: 50 guessing addresses, the admin still logs in", async () => {
    open();
    for (let client = 0; client < 50; client += 1) {
      for (let attempt = 0; attempt < 10; attempt += 1)
        await login(`wrong-${client}-${attempt}`, peer(`198.51.100.${client}`));
    }
    expect((await login(ADMIN_TOKEN, peer("192.0.2.1"))).status).toBe(200);
  });

  it("ignores X-Forwarded-For unless CONSOLE_TRUST_PROXY: forged hops share the peer's limit", async () => {
    open();
    for (let attempt = 0; attempt < 10; attempt += 1)
      await login("wrong", { ...peer("203.0.113.30"), "x-forwarded-for": `10.9.0.${attempt}` });
    const forged = await login(ADMIN_TOKEN, {
      ...peer("203.0.113.30"),
      "x-forwarded-for": "10.9.9.9",
    });
    expect(forged.status).toBe(429);
    await tc!.close();

    open({ trustProxy: true });
    // Behind a trusted proxy every request comes from the proxy: its last hop names the client.
    for (let attempt = 0; attempt < 10; attempt += 1)
      await login("wrong", { ...peer("10.0.0.1"), "x-forwarded-for": "forged, 203.0.113.31" });
    expect(
      (await login(ADMIN_TOKEN, { ...peer("10.0.0.1"), "x-forwarded-for": "203.0.113.31" })).status,
    ).toBe(429);
    expect(
      (await login(ADMIN_TOKEN, { ...peer("10.0.0.1"), "x-forwarded-for": "203.0.113.32" })).status,
    ).toBe(200);
  });

  it("labels bearer actions 'break-glass (token)' in the audit trail, with nothing derived from the token", async () => {
    const { prefix, ctx } = open();
    const acquired = await call(locks.POST, "/api/locks", {
      body: { resources: [`${prefix}label`], ttlMs: 1_000 },
    });
    expect(acquired.status).toBe(201);
    const { entries } = await ctx.audit.read(50);
    const entry = entries.find((item) => item.resources.includes(`${prefix}label`));
    expect(entry?.actor).toBe("break-glass (token)");
  });

  it("leaves a log line, a counter and a count in the refusal log for wrong credentials", async () => {
    const { ctx } = open();
    const client = `203.0.113.${40 + Math.floor(Math.random() * 200)}`;
    await login("wrong-login", peer(client));
    await call(nodesRoute.GET, "/api/nodes", { token: "wrong-bearer", headers: peer(client) });
    await call(nodesRoute.GET, "/api/nodes", { token: "wrong-bearer", headers: peer(client) });
    const metrics = await ctx.metrics.registry.getSingleMetricAsString(
      "redlock_console_auth_failures_total",
    );
    expect(metrics).toContain('redlock_console_auth_failures_total{kind="login"} 1');
    expect(metrics).toContain('redlock_console_auth_failures_total{kind="bearer"} 2');
    await ctx.refusals.flush();
    const { entries } = await ctx.refusals.read(200);
    const mine = entries.filter(
      (entry) => entry.action === "auth-failure" && entry.clientIp === client,
    );
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ count: 3, code: "unauthorized", actor: "anonymous" });
    const { entries: actions } = await ctx.audit.read(200);
    expect(actions.filter((entry) => entry.action === "auth-failure")).toEqual([]);
  });

  it("keeps a logout across a console restart and on another replica (revocations on the nodes)", async () => {
    open();
    const cookie = cookieOf((await login()).headers.get("set-cookie"));
    const out = await call(session.DELETE, "/api/session", {
      method: "DELETE",
      token: null,
      cookie,
    });
    expect(out.status).toBe(200);
    await tc!.close();

    open(); // a fresh process: nothing of the first console's memory
    const me = await call<SessionResponse>(session.GET, "/api/session", { token: null, cookie });
    expect(me.body.authenticated).toBe(false);

    // Logged in on this replica, logged out on another: refused here too.
    const second = cookieOf((await login()).headers.get("set-cookie"));
    const replica = createConsole(tc!.ctx.config);
    try {
      await logout(
        replica,
        buildRequest("/api/session", { method: "DELETE", token: null, cookie: second }),
      );
    } finally {
      await replica.close();
    }
    const after = await call<SessionResponse>(session.GET, "/api/session", {
      token: null,
      cookie: second,
    });
    expect(after.body.authenticated).toBe(false);
  });

  it("rate-limits reads per client (429 with Retry-After); health stays open", async () => {
    open({ readLimitPerS: 1 });
    const statuses: number[] = [];
    for (let index = 0; index < 12; index += 1)
      statuses.push(
        (await call(nodesRoute.GET, "/api/nodes", { headers: peer("203.0.113.50") })).status,
      );
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.at(-1)).toBe(429);
    expect(
      (await call(nodesRoute.GET, "/api/nodes", { headers: peer("203.0.113.51") })).status,
    ).toBe(200);
    expect((await call(health.GET, "/api/health", { headers: peer("203.0.113.50") })).status).toBe(
      200,
    );
  });
});
