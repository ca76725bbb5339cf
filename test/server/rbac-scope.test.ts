/**
 * Roles and scopes over real HTTP on the shared masters: people arrive through the authenticating
 * proxy (trusted at 127.0.0.2) with their groups, get roles from CONSOLE_RBAC, and act only within
 * one grant's scope (by resource glob, by the holder's owner service). A refusal is 403 with the
 * message naming what was missing, and the nodes are left exactly as they were.
 */
import { describe, expect, it, vi } from "vitest";
import type { ErrorBody, LocksResponse, SessionResponse } from "@/lib/api";
import { logger } from "@/lib/server/logger";
import { useRbacConsole } from "./fixtures/rbac-console";

const rbac = useRbacConsole();
type Answer = ErrorBody & Record<string, unknown>;

/** A lock held by `service` on every node; its key and value. */
async function heldBy(service: string, name: string) {
  const holder = await rbac.holder(service);
  const key = rbac.key(name);
  const value = holder.value();
  await rbac.setEverywhere(key, value);
  return { holder, key, value };
}

const forceRelease = (key: string, value: string) => ({
  resource: key,
  expectedValue: value,
  reason: "stuck in the on-call drill",
});

describe("roles from groups, through the proxy", () => {
  it("names the person, their groups and one grant per matching rule", async () => {
    const me = await rbac.as<SessionResponse>("alice", "/api/session");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      authenticated: true,
      credential: "proxy",
      role: "operator",
      person: { subject: "alice", email: "alice@example.com", issuer: "proxy" },
    });
    expect(me.body.person?.groups).toEqual(["payments-oncall", "everyone"]);
    expect(me.body.grants).toEqual([
      expect.objectContaining({ role: "operator", resources: null, services: ["payments"] }),
      expect.objectContaining({ role: "viewer", resources: null, services: null }),
    ]);
    const sam = await rbac.as<SessionResponse>("sam", "/api/session");
    expect(sam.body.role).toBe("admin");
  });

  it("ignores and logs the same headers from an address that is not the proxy", async () => {
    const warn = vi.spyOn(logger, "warn");
    const me = await rbac.as<SessionResponse>("sam", "/api/session", { from: "127.0.0.1" });
    expect(me.body).toMatchObject({ authenticated: false, person: null, grants: [] });
    const acquire = await rbac.as<Answer>("sam", "/api/locks", {
      from: "127.0.0.1",
      body: { resources: [rbac.key("spoofed")], ttlMs: 5_000 },
    });
    expect(acquire.status).toBe(401);
    expect(await rbac.valuesOf(rbac.key("spoofed"))).toEqual([null, null, null, null, null]);
    const line = warn.mock.calls.find(([, message]) =>
      String(message).includes("CONSOLE_AUTH_PROXY_ADDRESSES"),
    );
    expect(line?.[0]).toMatchObject({
      peer: "127.0.0.1",
      headers: expect.arrayContaining(["x-forwarded-user"]),
    });
    // Which headers came, never what they claimed.
    expect(JSON.stringify(line)).not.toContain("sre");
    warn.mockRestore();
  });
});

describe("values or digests", () => {
  it("shows a viewer the value's digest, and an operator of any scope the value", async () => {
    const { key, value } = await heldBy("orders", "shown:1");
    await rbac.tc.sync();
    const valueAs = async (person: "victor" | "alice") => {
      const page = await rbac.as<LocksResponse>(
        person,
        `/api/locks?match=${encodeURIComponent(key)}`,
      );
      return page.body.items.find((row) => row.resource === key)?.value;
    };
    expect(await valueAs("victor")).toMatch(/^sha1:[0-9a-f]{12}$/);
    expect(await valueAs("alice")).toBe(value);
  });
});

describe("scope by owner service", () => {
  it("lets the payments operator force a lock held by service payments", async () => {
    const { key, value } = await heldBy("payments", "pay:1");
    const answer = await rbac.as<Answer>("alice", "/api/locks/force-release", {
      body: forceRelease(key, value),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.tombstonedCount).toBe(5);
  });

  it("refuses them a lock held by service orders (403, the missing role named), nothing changed", async () => {
    const { key, value } = await heldBy("orders", "ord-by-service:1");
    const answer = await rbac.as<Answer>("alice", "/api/locks/force-release", {
      body: forceRelease(key, value),
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("forbidden");
    // The pairing rule: alice is everyone's viewer too, but never operator outside payments.
    expect(answer.body.error.message).toBe(
      `Force release needs operator for service orders; you have operator for service payments; this lock (${key}) is held by service orders.`,
    );
    expect(await rbac.valuesOf(key)).toEqual(Array(5).fill(value));
  });

  it("puts an out-of-scope attempt in the refusal log: the person, the route, the lock, the reason", async () => {
    const { key, value } = await heldBy("orders", "ord-seen:1");
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await rbac.as<Answer>("alice", "/api/locks/force-release", {
        body: forceRelease(key, value),
      });
      expect(answer.status).toBe(403);
    }
    await rbac.tc.ctx.refusals.flush();
    const { entries } = await rbac.tc.ctx.refusals.read(1_000, {
      filter: { resource: key },
      maxScan: 20_000,
    });
    expect(entries).toEqual([
      expect.objectContaining({
        action: "POST /api/locks/force-release",
        code: "forbidden",
        status: 403,
        count: 2,
        person: expect.objectContaining({ subject: "alice" }),
        credential: "proxy",
        resources: [key],
      }),
    ]);
    expect(entries[0]!.detail).toContain("operator for service orders");
  });

  it("refuses a revoke out of scope the same way, before any marker is written", async () => {
    const { key, value } = await heldBy("orders", "ord-revoke:1");
    const answer = await rbac.as<Answer>("alice", "/api/locks/revoke", {
      body: { resource: key, expectedValue: value, reason: "please let go" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.message).toContain("operator for service orders");
    const markers = await Promise.all(rbac.nodes.map((node) => node.keys(`redlock:{${key}}*`)));
    expect(markers.flat()).toEqual([]);
  });

  it("refuses force: true (no value, so no service to check) to a service-scoped operator", async () => {
    const { key, value } = await heldBy("payments", "pay-any:1");
    const answer = await rbac.as<Answer>("alice", "/api/locks/force-release", {
      body: { resource: key, force: true, reason: "any value will do" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.message).toContain(`this lock (${key}) names no service`);
    expect(await rbac.valuesOf(key)).toEqual(Array(5).fill(value));
  });
});

describe("scope by resource glob", () => {
  it("lets the orders operator force any holder's lock under orders:*, refuses one outside", async () => {
    const inside = await heldBy("payments", "orders:7");
    const allowed = await rbac.as<Answer>("bob", "/api/locks/force-release", {
      body: forceRelease(inside.key, inside.value),
    });
    expect(allowed.status).toBe(200);

    const outside = await heldBy("orders", "invoices:7");
    const refused = await rbac.as<Answer>("bob", "/api/locks/force-release", {
      body: forceRelease(outside.key, outside.value),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      `Force release needs operator for resource ${outside.key}; you have operator for resource *:orders:*; this lock (${outside.key}) is held by service orders.`,
    );
    expect(await rbac.valuesOf(outside.key)).toEqual(Array(5).fill(outside.value));
  });

  it("keeps the playground within the glob too", async () => {
    const refused = await rbac.as<Answer>("bob", "/api/locks", {
      body: { resources: [rbac.key("orders:pg"), rbac.key("elsewhere:pg")], ttlMs: 5_000 },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain(`resource ${rbac.key("elsewhere:pg")}`);
    expect(await rbac.valuesOf(rbac.key("orders:pg"))).toEqual(Array(5).fill(null));
    const allowed = await rbac.as<Answer>("bob", "/api/locks", {
      body: { resources: [rbac.key("orders:pg")], ttlMs: 5_000 },
    });
    expect(allowed.status).toBe(201);
  });

  it("leaves the immediate delete to admins", async () => {
    const { key, value } = await heldBy("payments", "orders:del");
    const operator = await rbac.as<Answer>("bob", "/api/locks/force-release", {
      body: { ...forceRelease(key, value), disposal: "delete-now" },
    });
    expect(operator.status).toBe(403);
    expect(operator.body.error.message).toBe(
      "Deleting a lock now needs admin for service payments; you are operator.",
    );
    expect(await rbac.valuesOf(key)).toEqual(Array(5).fill(value));
    const admin = await rbac.as<Answer>("sam", "/api/locks/force-release", {
      body: { ...forceRelease(key, value), disposal: "delete-now" },
    });
    expect(admin.status).toBe(200);
    expect(await rbac.valuesOf(key)).toEqual(Array(5).fill(null));
  });
});

describe("node settings are the console's, not a lock's", () => {
  // Issue 49's refuted list: an operator of any scope cannot change a node's keyspace events.
  it("refuses them to a scoped operator (403, the role named), the node's flags unchanged", async () => {
    const node = rbac.tc.ctx.registry.nodes[0]!;
    const flagsOf = async () =>
      ((await rbac.nodes[0]!.config("GET", "notify-keyspace-events")) as string[])[1];
    const before = await flagsOf();
    for (const person of ["alice", "bob"] as const) {
      const answer = await rbac.as<Answer>(
        person,
        `/api/nodes/${encodeURIComponent(node.id)}/keyspace-events`,
        { body: {} },
      );
      expect(answer.status, person).toBe(403);
      expect(answer.body.error.message, person).toBe(
        "Changing a node's settings needs admin; you are operator.",
      );
    }
    expect(await flagsOf()).toBe(before);
  });
});

describe("a holder session's release checks every lock it would touch", () => {
  it("refuses the whole release, naming the locks out of scope, and writes nothing", async () => {
    const holder = await rbac.holder("payments");
    const inside = rbac.key("orders:s1");
    const outside = rbac.key("carts:s1");
    const [insideValue, outsideValue] = [holder.value(), holder.value()];
    await rbac.setEverywhere(inside, insideValue);
    await rbac.setEverywhere(outside, outsideValue);
    await rbac.tc.sync();
    const answer = await rbac.as<Answer>("bob", `/api/sessions/${holder.id}/release`, {
      body: { reason: "worker wedged", force: true },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.message).toMatch(
      new RegExp(
        `^1 of this session's 2 lock\\(s\\) are outside your scope, so nothing was released: ${outside.replace(/[-:]/g, "\\$&")} \\(service payments\\)\\.`,
      ),
    );
    expect(await rbac.valuesOf(inside)).toEqual(Array(5).fill(insideValue));
    expect(await rbac.valuesOf(outside)).toEqual(Array(5).fill(outsideValue));
    // Alice's grant covers service payments: every lock of this session.
    const allowed = await rbac.as<Answer>("alice", `/api/sessions/${holder.id}/release`, {
      body: { reason: "worker wedged", force: true },
    });
    expect(allowed.status).toBe(200);
  });
});
