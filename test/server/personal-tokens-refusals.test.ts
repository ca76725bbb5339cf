/**
 * Issue 42 item 5: the token routes refuse what they must, over real HTTP on real masters:
 * no credential, another origin, hostile bodies, ids, queries and bearer tokens (400/401/403,
 * never 500, nothing created or revoked).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestConsole } from "./helpers";
import { sharedUrls } from "../masters";
import { person, send, startPeople, type People } from "./people";
import type { RouteServer } from "./route-server";

const alice = person("Alice Oncall", "alice@example.com", ["payments-oncall"]);

let tc: TestConsole;
let server: RouteServer;

let people: People;

beforeAll(async () => {
  people = await startPeople(sharedUrls(), { alice });
  ({ tc, server } = people);
  await tc.ready();
});
afterAll(async () => {
  await people.close();
});

const create = (name: string) =>
  send(server, "POST", "/api/tokens", {
    as: "alice",
    body: { name, grants: [{ role: "operator", services: ["payments"] }], expiresInHours: 24 },
  });
const whoAmI = (bearer: string) => send(server, "GET", "/api/session", { bearer });

describe("the token routes refuse", () => {
  it("requests without a credential", async () => {
    const body = { name: "anon", grants: [{ role: "viewer" }], expiresInHours: 1 };
    const anonymous = await send(server, "POST", "/api/tokens", { body, origin: server.base });
    expect(anonymous.status).toBe(401);
    expect((await send(server, "GET", "/api/tokens")).status).toBe(401);
    const revoke = await send(server, "DELETE", "/api/tokens/0123456789abcdef", {
      origin: server.base,
    });
    expect(revoke.status).toBe(401);
  });

  it("cross-origin requests, with nothing created or revoked", async () => {
    const { token, secret } = (await create("cross")).body;
    const body = { name: "evil", grants: [{ role: "viewer" }], expiresInHours: 1 };
    for (const origin of ["http://evil.test", null]) {
      const created = await send(server, "POST", "/api/tokens", { as: "alice", body, origin });
      expect(created.status).toBe(403);
      expect(created.body.error.code).toBe("cross_origin");
      const revoked = await send(server, "DELETE", `/api/tokens/${token.id}`, {
        as: "alice",
        origin,
      });
      expect(revoked.status).toBe(403);
    }
    expect((await whoAmI(secret)).status).toBe(200);
    const names = (await send(server, "GET", "/api/tokens", { as: "alice" })).body.tokens.map(
      (each: { name: string }) => each.name,
    );
    expect(names).not.toContain("evil");
  });

  it.each([
    ["a name with spaces", { name: "a b", grants: [{ role: "viewer" }], expiresInHours: 1 }],
    ["a name too long", { name: "x".repeat(65), grants: [{ role: "viewer" }], expiresInHours: 1 }],
    ["no grants", { name: "none", grants: [], expiresInHours: 1 }],
    ["an unknown role", { name: "r", grants: [{ role: "root" }], expiresInHours: 1 }],
    [
      "an unknown field",
      { name: "f", grants: [{ role: "viewer" }], expiresInHours: 1, secret: "mine" },
    ],
    ["a fractional expiry", { name: "f", grants: [{ role: "viewer" }], expiresInHours: 1.5 }],
    ["a zero expiry", { name: "f", grants: [{ role: "viewer" }], expiresInHours: 0 }],
    [
      "too many grants",
      { name: "f", grants: Array(11).fill({ role: "viewer" }), expiresInHours: 1 },
    ],
    [
      "an empty glob",
      { name: "f", grants: [{ role: "viewer", resources: [""] }], expiresInHours: 1 },
    ],
    ["not an object", ["name"]],
  ])("hostile input: %s (400, nothing created)", async (_name, body) => {
    const count = async () =>
      (await send(server, "GET", "/api/tokens", { as: "alice" })).body.tokens.length as number;
    const before = await count();
    const refused = await send(server, "POST", "/api/tokens", { as: "alice", body });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    expect(await count()).toBe(before);
  });

  it("hostile input: bad JSON, bad ids, bad query, unknown ids", async () => {
    const badJson = await send(server, "POST", "/api/tokens", { as: "alice", raw: "{nope" });
    expect(badJson.status).toBe(400);
    for (const id of ["XYZ", "0123456789abcdeg", "0123456789abcdef0", "%00"]) {
      const bad = await send(server, "DELETE", `/api/tokens/${id}`, { as: "alice" });
      expect(bad.status).toBe(400);
    }
    expect(
      (await send(server, "DELETE", "/api/tokens/0123456789abcdef", { as: "alice" })).status,
    ).toBe(404);
    expect((await send(server, "GET", "/api/tokens?owner=everyone", { as: "alice" })).status).toBe(
      400,
    );
    for (const bearer of ["rlc_", "rlc_0123456789abcdef_short", `rlc_${"a".repeat(400)}`]) {
      expect((await whoAmI(bearer)).status).toBe(401);
    }
  });
});
