/**
 * Issue 42 item 5: personal tokens over real HTTP on real masters. A person (signed in through
 * the test OpenID Provider: people.ts) creates a token within their own grants, the secret is
 * shown once and kept as a hash on the lock nodes, and a script uses it as a bearer until it is
 * revoked, expires, or its record is lost on a majority (fail closed).
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { recordKeyOf, usedKeyOf } from "@/lib/server/auth/personal-tokens/token-store";
import { ADMIN_TOKEN, type TestConsole } from "./helpers";
import { connect, disconnect, sharedUrls } from "../masters";
import { person, send, startPeople, type People } from "./people";
import type { RouteServer } from "./route-server";

const PAYMENTS_OPERATOR = {
  role: "operator" as const,
  resources: null,
  services: ["payments"],
  rule: "CONSOLE_RBAC[0] (group payments-oncall)",
};
const EVERYONE_VIEWER = {
  role: "viewer" as const,
  resources: null,
  services: null,
  rule: "CONSOLE_RBAC[2] (group everyone)",
};
const alice = person("Alice Oncall", "alice@example.com", ["payments-oncall", "everyone"]);
const bob = person("Bob Viewer", "bob@example.com", ["everyone"]);
const carol = person("Carol Admin", "carol@example.com", ["sre"]);

let tc: TestConsole;
let server: RouteServer;
let nodes: Redis[];

let people: People;

beforeAll(async () => {
  people = await startPeople(sharedUrls(), { alice, bob, carol }, { tokenMaxTtlDays: 30 });
  ({ tc, server } = people);
  nodes = connect(sharedUrls());
  await tc.ready();
});
afterAll(async () => {
  await people.close();
  await disconnect(nodes);
});

const operatorForPayments = { role: "operator", services: ["payments"] };
const create = (name: string, grants: unknown[] = [operatorForPayments], as = "alice") =>
  send(server, "POST", "/api/tokens", { as, body: { name, grants, expiresInHours: 24 } });
const whoAmI = (bearer: string) => send(server, "GET", "/api/session", { bearer });

describe("the people, signed in through the test provider", () => {
  it("carry the grants their groups give by CONSOLE_RBAC, through the guard's sign-in path", async () => {
    const me = await send(server, "GET", "/api/session", { as: "alice" });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      credential: "sign-in",
      person: { subject: alice.subject, email: "alice@example.com" },
      grants: [PAYMENTS_OPERATOR, EVERYONE_VIEWER],
    });
  });
});

describe("creating a token", () => {
  it("creates one within the person's own role and scope; the secret is shown once and stored only hashed", async () => {
    const created = await create("ci-unlock");
    expect(created.status).toBe(201);
    const { token, secret } = created.body;
    expect(secret).toMatch(/^rlc_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({
      name: "ci-unlock",
      ownerLabel: "Alice Oncall <alice@example.com>",
      lastUsedAt: null,
      grants: [
        {
          role: "operator",
          resources: null,
          services: ["payments"],
          rule: "token ci-unlock, within CONSOLE_RBAC[0] (group payments-oncall)",
        },
      ],
    });
    expect(token.expiresAt - token.createdAt).toBe(24 * 3_600_000);
    expect(created.body.nodes).toHaveLength(5);

    // The store: the record on every node holds the secret's SHA-256, never the secret.
    const hash = createHash("sha256").update(secret).digest("base64url");
    for (const raw of await Promise.all(nodes.map((node) => node.get(recordKeyOf(token.id))))) {
      expect(raw).not.toContain(secret.slice(21));
      expect(JSON.parse(raw!)).toMatchObject({
        secretHash: hash,
        owner: { email: "alice@example.com" },
      });
    }
    const pttl = await nodes[0]!.pttl(recordKeyOf(token.id));
    expect(pttl).toBeGreaterThan(23 * 3_600_000);
    // Listed, never with its secret again.
    const listed = await send(server, "GET", "/api/tokens", { as: "alice" });
    expect(listed.body.tokens.map((each: { id: string }) => each.id)).toContain(token.id);
    expect(listed.text).not.toContain(secret.slice(21));
  });

  it.each([
    ["a higher role", [{ role: "admin" }], "admin for everything is not within your own grants"],
    [
      "a wider scope",
      [{ role: "operator" }],
      "operator for everything is not within your own grants",
    ],
    [
      "another service",
      [{ role: "operator", services: ["orders"] }],
      "operator for services orders",
    ],
    [
      "one grant's role with another's scope",
      [{ role: "operator", resources: ["orders:*"] }],
      "operator for resources orders:*",
    ],
  ])("refuses %s with a 403 that names why, and stores nothing", async (_name, grants, why) => {
    const name = `wide-${Math.random().toString(36).slice(2, 8)}`;
    const refused = await create(name, grants);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(refused.body.error.message).toContain(why);
    expect(refused.body.error.message).toContain("CONSOLE_RBAC[0] (group payments-oncall)");
    const listed = await send(server, "GET", "/api/tokens", { as: "alice" });
    expect(listed.body.tokens.map((each: { name: string }) => each.name)).not.toContain(name);
  });

  it("refuses an expiry past CONSOLE_TOKEN_MAX_TTL_DAYS, break-glass (nobody), and a token minting tokens", async () => {
    const tooLong = await send(server, "POST", "/api/tokens", {
      as: "alice",
      body: { name: "long", grants: [operatorForPayments], expiresInHours: 31 * 24 },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toContain("at most 720");

    const body = { name: "glass", grants: [{ role: "viewer" }], expiresInHours: 1 };
    const glass = await send(server, "POST", "/api/tokens", { bearer: ADMIN_TOKEN, body });
    expect(glass.status).toBe(403);
    expect(glass.body.error.message).toContain("break-glass");

    const parent = (await create("parent")).body.secret;
    const child = await send(server, "POST", "/api/tokens", { bearer: parent, body });
    expect(child.status).toBe(403);
    expect(child.body.error.message).toContain("cannot create tokens");
  });
});

describe("using a token", () => {
  it("acts as its owner with the token's grants only, and records its last use at most once a minute", async () => {
    const { token, secret } = (await create("reader", [{ role: "viewer", services: ["payments"] }]))
      .body;
    const me = await whoAmI(secret);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      credential: "personal-token",
      person: { subject: alice.subject, email: "alice@example.com" },
      role: "viewer",
      grants: [{ role: "viewer", services: ["payments"], resources: null }],
    });
    const used = () => Promise.all(nodes.map((node) => node.get(usedKeyOf(token.id))));
    await vi.waitFor(async () => expect((await used()).every((at) => at !== null)).toBe(true));
    const first = await used();
    await whoAmI(secret);
    await whoAmI(secret);
    expect(await used()).toEqual(first); // a busy script writes no more than once per minute
    const listed = await send(server, "GET", "/api/tokens", { as: "alice" });
    const mine = listed.body.tokens.find((each: { id: string }) => each.id === token.id);
    expect(mine.lastUsedAt).toBe(Number(first[0]));
  });

  it("refuses a wrong token as a credential failure (401, counted)", async () => {
    const { secret } = (await create("typo")).body;
    const failures = async () =>
      (await tc.ctx.metrics.registry.getSingleMetricAsString("redlock_console_auth_failures_total"))
        .split("\n")
        .filter((line) => line.startsWith("redlock_console_auth_failures_total{"))
        .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
    const before = await failures();
    const wrong = await whoAmI(`${secret.slice(0, -2)}xx`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toContain("personal token is not valid");
    expect(await failures()).toBe(before + 1);
  });
});

describe("ending a token", () => {
  it("is revoked by its owner: refused at once", async () => {
    const { token, secret } = (await create("owner-revokes")).body;
    expect((await whoAmI(secret)).status).toBe(200);
    const revoked = await send(server, "DELETE", `/api/tokens/${token.id}`, { as: "alice" });
    expect(revoked.status).toBe(200);
    expect(revoked.body.nodes).toHaveLength(5);
    expect((await whoAmI(secret)).status).toBe(401);
    expect(await Promise.all(nodes.map((node) => node.exists(recordKeyOf(token.id))))).toEqual([
      0, 0, 0, 0, 0,
    ]);
  });

  it("is revoked by an admin, and not by another person", async () => {
    const { token, secret } = (await create("admin-revokes")).body;
    const byBob = await send(server, "DELETE", `/api/tokens/${token.id}`, { as: "bob" });
    expect(byBob.status).toBe(403);
    expect(byBob.body.error.message).toContain("owner or an admin");
    expect((await whoAmI(secret)).status).toBe(200);
    const all = await send(server, "GET", "/api/tokens?owner=all", { as: "carol" });
    expect(all.body.tokens.map((each: { id: string }) => each.id)).toContain(token.id);
    expect((await send(server, "GET", "/api/tokens?owner=all", { as: "bob" })).status).toBe(403);
    expect((await send(server, "DELETE", `/api/tokens/${token.id}`, { as: "carol" })).status).toBe(
      200,
    );
    expect((await whoAmI(secret)).status).toBe(401);
  });

  it("expires: a record past its expiresAt is refused, and so is one whose key expired", async () => {
    const first = (await create("expires-field")).body;
    await Promise.all(
      nodes.map(async (node) => {
        const record = JSON.parse((await node.get(recordKeyOf(first.token.id)))!);
        await node.set(
          recordKeyOf(first.token.id),
          JSON.stringify({ ...record, expiresAt: Date.now() - 1 }),
          "KEEPTTL",
        );
      }),
    );
    expect((await whoAmI(first.secret)).status).toBe(401);
    const second = (await create("expires-key")).body;
    await Promise.all(nodes.map((node) => node.pexpire(recordKeyOf(second.token.id), 1)));
    await vi.waitFor(async () => expect((await whoAmI(second.secret)).status).toBe(401));
  });

  it("fails closed: records lost on a majority revoke it, lost on a minority do not, and a changed copy counts as lost", async () => {
    const { token, secret } = (await create("fail-closed")).body;
    await Promise.all(nodes.slice(0, 2).map((node) => node.del(recordKeyOf(token.id))));
    expect((await whoAmI(secret)).status).toBe(200); // 3 of 5 still hold it
    const raw = (await nodes[2]!.get(recordKeyOf(token.id)))!;
    const widened = {
      ...JSON.parse(raw),
      grants: [{ ...PAYMENTS_OPERATOR, role: "admin", services: null }],
    };
    await nodes[2]!.set(recordKeyOf(token.id), JSON.stringify(widened), "KEEPTTL");
    expect((await whoAmI(secret)).status).toBe(401); // 2 agree: not a majority
    await nodes[2]!.set(recordKeyOf(token.id), raw, "KEEPTTL");
    expect((await whoAmI(secret)).status).toBe(200);
    await nodes[2]!.del(recordKeyOf(token.id)); // evicted on a third node: gone for good
    expect((await whoAmI(secret)).status).toBe(401);
    // Never repaired back: the nodes that lost it still lack it after the console read the rest.
    const held = await Promise.all(nodes.map((node) => node.exists(recordKeyOf(token.id))));
    expect(held).toEqual([0, 0, 0, 1, 1]);
  });
});
