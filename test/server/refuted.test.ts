/**
 * Issue 49's refuted list, kept so: attacks the outside review tried that did not work, each over
 * real HTTP (http-harness.ts stamps the TCP peer as `next start` does; the client picks its source
 * address on 127/8) against a real console on the five shared masters. Not yet covered elsewhere:
 * a forged `X-Forwarded-For` without CONSOLE_TRUST_PROXY never becomes the client address the
 * audit names, and a forged session cookie is nobody's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as audit from "@/app/api/audit/route";
import * as locks from "@/app/api/locks/route";
import * as session from "@/app/api/session/route";
import type { AuditResponse, ErrorBody, SessionResponse } from "@/lib/api";
import { sharedUrls } from "../masters";
import { ADMIN_TOKEN, call, startTestConsole, type TestConsole } from "./helpers";
import { httpCall, serveRoutes, type HttpConsole } from "./http-harness";

type Handler = (request: Request) => Promise<Response>;
const ROUTES: Record<string, Partial<Record<"GET" | "POST" | "DELETE", Handler>>> = {
  "/api/audit": audit,
  "/api/locks": locks,
  "/api/session": session,
};

let tc: TestConsole;
let server: HttpConsole;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const FORGED_HOP = "203.0.113.7";

beforeAll(async () => {
  tc = startTestConsole(sharedUrls()); // CONSOLE_TRUST_PROXY: false, the default
  server = await serveRoutes(
    (method, pathname) => ROUTES[pathname]?.[method as "GET" | "POST" | "DELETE"],
  );
});
afterAll(async () => {
  await server.close();
  await tc.close();
});

describe("X-Forwarded-For without CONSOLE_TRUST_PROXY", () => {
  it("names the TCP peer, never a forged hop, in the actions trail and in the refusal log", async () => {
    const resource = `${tc.prefix}forwarded`;
    // A user agent of this test's own, to find its refusal among other files' on the shared masters.
    const userAgent = `refuted-test ${tc.prefix}`;
    const headers = { "x-forwarded-for": FORGED_HOP, "user-agent": userAgent };
    const acquired = await httpCall(server, "/api/locks", {
      body: { resources: [resource], ttlMs: 1_000 },
      headers: { ...headers, ...bearer(ADMIN_TOKEN) },
      from: "127.0.0.3",
    });
    expect(acquired.status).toBe(201);
    const refused = await httpCall<ErrorBody>(server, "/api/locks", {
      body: { resources: [resource], ttlMs: 1_000 },
      headers: { ...headers, ...bearer("wrong-token-0123456789abcdef") },
      from: "127.0.0.4",
    });
    expect(refused.status).toBe(401);
    await tc.ctx.refusals.flush();

    const read = (query: string) =>
      httpCall<AuditResponse>(server, `/api/audit?${query}`, { headers: bearer(ADMIN_TOKEN) });
    const { body: actions } = await read(`resource=${encodeURIComponent(resource)}`);
    expect(actions.entries.map((entry) => [entry.action, entry.clientIp])).toEqual([
      ["acquire", "127.0.0.3"],
    ]);
    const { body: refusals } = await read("kind=refusals&limit=1000");
    const mine = refusals.refusals!.filter((refusal) => refusal.userAgent === userAgent);
    expect(mine.map((refusal) => [refusal.code, refusal.clientIp])).toEqual([
      ["unauthorized", "127.0.0.4"],
    ]);
  });
});

describe("a forged session cookie", () => {
  it("is nobody: an altered expiry, another MAC and a made-up value are refused (401), the real one acts", async () => {
    const login = await call(session.POST, "/api/session", {
      body: { token: ADMIN_TOKEN },
      token: null,
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const [name, value] = cookie.split("=") as [string, string];
    const [expiresAt, nonce, mac] = value.split(".") as [string, string, string];
    const flipped = `${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`;
    const forged = [
      `${name}=${Number(expiresAt) + 86_400_000}.${nonce}.${mac}`,
      `${name}=${expiresAt}.${nonce}.${flipped}`,
      `${name}=${Date.now() + 3_600_000}.${"0".repeat(nonce.length)}.${"A".repeat(mac.length)}`,
    ];
    const act = (withCookie: string, name: string) =>
      httpCall<ErrorBody>(server, "/api/locks", {
        body: { resources: [`${tc.prefix}${name}`], ttlMs: 1_000 },
        headers: { cookie: withCookie },
      });
    for (const [index, each] of forged.entries()) {
      const answer = await act(each, `forged-${index}`);
      expect(answer.status, each).toBe(401);
      const me = await httpCall<SessionResponse>(server, "/api/session", {
        headers: { cookie: each },
      });
      expect(me.body.authenticated, each).toBe(false);
    }
    expect((await act(cookie, "real")).status).toBe(201);
  });
});
