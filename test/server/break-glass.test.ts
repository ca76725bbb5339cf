/**
 * The break-glass admin token beside sign-in: still accepted, never quietly (audited as
 * break-glass, counted, the latest use shown to admins on any replica), and it can be turned off.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as locks from "@/app/api/locks/route";
import * as nodesRoute from "@/app/api/nodes/route";
import * as session from "@/app/api/session/route";
import type { ErrorBody, SessionResponse } from "@/lib/api";
import { PEER_ADDRESS_HEADER } from "@/lib/server/auth/client-info";
import { configFor } from "@/lib/server/config";
import { createConsole } from "@/lib/server/console";
import { setDefaultConsole } from "@/lib/server/default-console";
import { startTestProvider, TEST_PEOPLE, type TestProvider } from "../support/oidc-provider";
import { sharedUrls } from "../masters";
import { ADMIN_TOKEN, call, startTestConsole, type TestConsole } from "./helpers";
import { cookieFrom, signInAs, signInConfig, TEST_CLIENT } from "./sign-in-helpers";

const [alice, , vera] = TEST_PEOPLE as [
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

const me = async (cookie?: string) =>
  (await call<SessionResponse>(session.GET, "/api/session", { token: null, cookie })).body;

describe("break-glass", () => {
  it("audits a bearer action with the actor 'break-glass (token)' and counts every use", async () => {
    const { prefix, ctx } = (tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer)));
    const acquired = await call(locks.POST, "/api/locks", {
      body: { resources: [`${prefix}glass`], ttlMs: 1_000 },
    });
    expect(acquired.status).toBe(201);
    const { entries } = await ctx.audit.read(50);
    expect(entries.find((entry) => entry.resources.includes(`${prefix}glass`))?.actor).toBe(
      "break-glass (token)",
    );
    const counted = await ctx.metrics.registry.getSingleMetricAsString(
      "redlock_console_break_glass_uses_total",
    );
    expect(counted).toContain('redlock_console_break_glass_uses_total{carrier="bearer"} 1');
  });

  it("audits bearer reads once per client per 10 minutes", async () => {
    const { ctx } = (tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer)));
    const client = `198.51.100.${10 + Math.floor(Math.random() * 200)}`;
    for (let read = 0; read < 3; read += 1)
      expect(
        (await call(nodesRoute.GET, "/api/nodes", { headers: { [PEER_ADDRESS_HEADER]: client } }))
          .status,
      ).toBe(200);
    await vi.waitFor(async () => {
      const { entries } = await ctx.audit.read(200);
      const mine = entries.filter(
        (entry) => entry.action === "break-glass" && entry.clientIp === client,
      );
      expect(mine).toHaveLength(1);
      expect(mine[0]?.actor).toBe("break-glass (token)");
    });
  });

  it("audits a sign-in with the admin token as a break-glass sign-in", async () => {
    const { ctx } = (tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer)));
    const login = await call<SessionResponse>(session.POST, "/api/session", {
      body: { token: ADMIN_TOKEN },
      token: null,
    });
    expect(login.body).toMatchObject({ credential: "break-glass", role: "admin", person: null });
    const { entries } = await ctx.audit.read(50);
    const entry = entries.find(
      (item) => item.action === "sign-in" && item.actor.startsWith("break-glass"),
    );
    expect(entry?.actor).toMatch(/^break-glass \(sign-in [\w-]{8}\)$/);
  });

  it("shows admins signed in as themselves the latest use, from another replica; not viewers", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const admin = await signInAs(alice);
    const viewer = await signInAs(vera);
    const replica = createConsole(
      configFor(sharedUrls(), {
        ...signInConfig(provider.issuer),
        adminToken: ADMIN_TOKEN,
        logLevel: "silent",
      }),
    );
    setDefaultConsole(replica);
    const before = Date.now();
    try {
      expect((await call(nodesRoute.GET, "/api/nodes")).status).toBe(200);
    } finally {
      setDefaultConsole(tc.ctx);
    }
    await vi.waitFor(async () => {
      const use = (await me(admin)).breakGlassLastUse;
      expect(use?.label).toBe("break-glass (token)");
      expect(use!.at).toBeGreaterThanOrEqual(before);
    });
    expect((await me(viewer)).breakGlassLastUse).toBeNull();
    await replica.close();
  });

  it("can be turned off: the token is refused as a bearer, at the sign-in form and in its cookie", async () => {
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer));
    const cookie = cookieFrom(
      (await call(session.POST, "/api/session", { body: { token: ADMIN_TOKEN }, token: null }))
        .headers,
      "redlock_console_session",
    )!;
    expect((await me(cookie)).credential).toBe("break-glass");
    await tc.close();
    tc = startTestConsole(sharedUrls(), signInConfig(provider.issuer, { breakGlass: false }));
    const bearer = await call<ErrorBody>(nodesRoute.GET, "/api/nodes");
    expect(bearer.status).toBe(401);
    expect(bearer.body.error.message).toContain("CONSOLE_BREAK_GLASS=false");
    const login = await call<ErrorBody>(session.POST, "/api/session", {
      body: { token: ADMIN_TOKEN },
      token: null,
    });
    expect(login.status).toBe(401);
    expect(await me(cookie)).toMatchObject({ authenticated: false, breakGlassEnabled: false });
    expect((await me(await signInAs(alice))).role).toBe("admin");
  });
});
