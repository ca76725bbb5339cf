/**
 * The policy as a table of cases (auth/policy.ts): the grants from CONSOLE_RBAC (auth/rbac.ts), an
 * action, a lock, and the decision with its words. The pairing rule is the heart of it: one grant
 * must carry both the role and the scope.
 */
import { describe, expect, it } from "vitest";
import { BREAK_GLASS_GRANT, type Grant } from "@/lib/server/auth/identity";
import {
  decideConsole,
  decideLock,
  decideResource,
  decideWholeLock,
  readsValues,
  type Action,
  type LockTarget,
} from "@/lib/server/auth/policy";
import { grantsFor } from "@/lib/server/auth/rbac";
import type { RbacRule } from "@/lib/server/rbac-config";

const RULES: RbacRule[] = [
  { group: "payments-oncall", role: "operator", services: ["payments"] },
  { group: "orders-oncall", role: "operator", resources: ["orders:*"] },
  { group: "eu-admins", role: "admin", resources: ["eu:*"], services: ["billing"] },
  { group: "sre", role: "admin" },
  { group: "everyone", role: "viewer" },
  // Issue 49 row 1: an admin over payments' locks only, who is not everyone's admin.
  { group: "payments-admins", role: "admin", resources: ["payments:*"] },
];
const grants = (...groups: string[]): Grant[] => grantsFor(groups, RULES, "none");
const lock = (resource: string, service: string | null): LockTarget => ({ resource, service });

describe("decideLock: one grant must cover both the role and the lock", () => {
  it.each<[string, string[], Action, LockTarget, boolean]>([
    [
      "payments operator, payments lock",
      ["payments-oncall"],
      "force-release",
      lock("x:1", "payments"),
      true,
    ],
    [
      "payments operator, orders lock",
      ["payments-oncall"],
      "force-release",
      lock("x:1", "orders"),
      false,
    ],
    // The pairing rule: the viewer grant's "everything" never lends its scope to the operator grant.
    [
      "payments operator + everyone's viewer, orders lock",
      ["payments-oncall", "everyone"],
      "force-release",
      lock("orders:1", "orders"),
      false,
    ],
    [
      "payments operator, a holder naming no service",
      ["payments-oncall"],
      "revoke",
      lock("x:1", null),
      false,
    ],
    [
      "orders operator, any holder under orders:*",
      ["orders-oncall"],
      "force-release",
      lock("orders:9", "payments"),
      true,
    ],
    [
      "orders operator, outside orders:*",
      ["orders-oncall"],
      "force-release",
      lock("order:9", "orders"),
      false,
    ],
    [
      "a star matches the empty rest too",
      ["orders-oncall"],
      "release-session",
      lock("orders:", null),
      true,
    ],
    [
      "scoped admin: both the glob and the service",
      ["eu-admins"],
      "force-delete",
      lock("eu:1", "billing"),
      true,
    ],
    [
      "scoped admin: the glob without the service",
      ["eu-admins"],
      "force-delete",
      lock("eu:1", "orders"),
      false,
    ],
    [
      "operator cannot delete now",
      ["orders-oncall"],
      "force-delete",
      lock("orders:1", null),
      false,
    ],
    ["viewer cannot act", ["everyone"], "force-release", lock("a", null), false],
    ["no role", [], "acquire", lock("a", null), false],
    ["admin of everything", ["sre"], "force-delete", lock("any", "thing"), true],
    [
      "resource-scoped admin, inside its glob",
      ["payments-admins"],
      "force-delete",
      lock("payments:1", null),
      true,
    ],
    [
      "resource-scoped admin, outside its glob",
      ["payments-admins"],
      "force-delete",
      lock("orders:1", null),
      false,
    ],
    // An admin grant's role never lends itself to the viewer grant's "every lock".
    [
      "resource-scoped admin + everyone's viewer, outside its glob",
      ["payments-admins", "everyone"],
      "revoke",
      lock("orders:1", "orders"),
      false,
    ],
  ])("%s", (_name, groups, action, target, allowed) => {
    expect(decideLock(grants(...groups), action, target).allowed).toBe(allowed);
  });

  it("says what was missing, in the terms of the person's grants", () => {
    const refusal = (groups: string[], target: LockTarget, action: Action = "force-release") => {
      const decision = decideLock(grants(...groups), action, target);
      return decision.allowed ? null : decision.reason;
    };
    expect(refusal(["payments-oncall", "everyone"], lock("orders:1", "orders"))).toBe(
      "Force release needs operator for service orders; you have operator for service payments; this lock (orders:1) is held by service orders.",
    );
    expect(refusal(["everyone"], lock("orders:1", "orders"))).toBe(
      "Force release needs operator for service orders; you are viewer.",
    );
    expect(refusal(["orders-oncall"], lock("carts:1", "carts"))).toBe(
      "Force release needs operator for resource carts:1; you have operator for resource orders:*; this lock (carts:1) is held by service carts.",
    );
    expect(refusal([], lock("a", null), "acquire")).toBe(
      "Acquiring in the playground needs operator for resource a; you have no role (no CONSOLE_RBAC rule names your groups).",
    );
  });
});

describe("decideWholeLock: one grant over every resource the lock holds (issue 49 row 4)", () => {
  const known = (...resources: string[]) => ({ known: true as const, resources });
  const unknown = { known: false as const, why: "this value names no holder session" };
  it.each<[string, string[], { known: boolean }, string | null, boolean]>([
    [
      "orders operator, every resource under orders:*",
      ["orders-oncall"],
      known("orders:1", "orders:2"),
      null,
      true,
    ],
    [
      "orders operator, one resource outside",
      ["orders-oncall"],
      known("orders:1", "carts:1"),
      null,
      false,
    ],
    ["orders operator, a set it cannot know", ["orders-oncall"], unknown, null, false],
    [
      "payments operator (by service), a set it cannot know",
      ["payments-oncall"],
      unknown,
      "payments",
      true,
    ],
    ["payments operator, another service's lock", ["payments-oncall"], unknown, "orders", false],
    ["admin of everything, a set it cannot know", ["sre"], unknown, null, true],
    // A semaphore's permit, and a read-write lock's writer, by the group's name.
    [
      "orders operator, a permit of semaphore orders:x",
      ["orders-oncall"],
      known("{orders:x}#0", "{orders:x}#w"),
      null,
      true,
    ],
    [
      "orders operator, a permit of semaphore carts:x",
      ["orders-oncall"],
      known("{carts:x}#1"),
      null,
      false,
    ],
  ])("%s", (_name, groups, resources, service, allowed) => {
    const decision = decideWholeLock(grants(...groups), "force-release", {
      resources: resources as Parameters<typeof decideWholeLock>[2]["resources"],
      service,
    });
    expect(decision.allowed).toBe(allowed);
  });

  it("names the resources outside the scope, or why the set is unknown", () => {
    const outside = decideWholeLock(grants("orders-oncall"), "revoke", {
      resources: known("orders:1", "carts:1"),
      service: null,
    });
    expect(outside).toMatchObject({ allowed: false });
    expect(!outside.allowed && outside.reason).toBe(
      "Asking the holder to release needs operator for every resource of this lock: it holds 2 (orders:1, carts:1), and its holder loses all of them at once; outside your scope: carts:1; you have operator for resource orders:*.",
    );
    const notKnown = decideWholeLock(grants("orders-oncall"), "force-release", {
      resources: unknown,
      service: null,
    });
    expect(!notKnown.allowed && notKnown.reason).toContain("this value names no holder session");
  });
});

describe("decideResource: before the holder is read", () => {
  it("decides on the resource when it can, and asks for the service only when it must", () => {
    expect(decideResource(grants("orders-oncall"), "force-release", "orders:1")).toMatchObject({
      allowed: true,
    });
    expect(decideResource(grants("payments-oncall"), "force-release", "orders:1")).toBe(
      "needs-service",
    );
    expect(decideResource(grants("orders-oncall"), "force-release", "carts:1")).toEqual({
      allowed: false,
      reason:
        "Force release needs operator for resource carts:1; you have operator for resource orders:*.",
    });
  });
});

describe("console-wide actions need the role over every lock", () => {
  it.each<[string, Grant[], Action, boolean]>([
    ["admin of everything", grants("sre"), "node-admin", true],
    ["break-glass", [BREAK_GLASS_GRANT], "node-admin", true],
    ["scoped admin", grants("eu-admins"), "node-admin", false],
    ["operator", grants("orders-oncall"), "token-admin", false],
    // Others' tokens are the console's, not a lock's: no scope of admin reaches them.
    ["admin of everything, others' tokens", grants("sre"), "token-admin", true],
    ["break-glass, others' tokens", [BREAK_GLASS_GRANT], "token-admin", true],
    ["resource-scoped admin, others' tokens", grants("payments-admins"), "token-admin", false],
    [
      "resource-and-service-scoped admin, others' tokens",
      grants("eu-admins"),
      "token-admin",
      false,
    ],
    [
      "resource-scoped admin + everyone's viewer, others' tokens",
      grants("payments-admins", "everyone"),
      "token-admin",
      false,
    ],
    [
      "resource-scoped admin, a person's sign-ins",
      grants("payments-admins"),
      "sign-in-admin",
      false,
    ],
    ["admin of everything, a person's sign-ins", grants("sre"), "sign-in-admin", true],
    [
      "resource-scoped admin + admin of everything, others' tokens",
      grants("payments-admins", "sre"),
      "token-admin",
      true,
    ],
  ])("%s", (_name, given, action, allowed) => {
    expect(decideConsole(given, action).allowed).toBe(allowed);
  });

  it("names the scope the admin grant lacks", () => {
    expect(decideConsole(grants("eu-admins"), "node-admin")).toEqual({
      allowed: false,
      reason:
        "Changing a node's settings needs admin for every lock; you have admin for resource eu:* held by service billing.",
    });
    expect(decideConsole(grants("payments-admins", "everyone"), "token-admin")).toEqual({
      allowed: false,
      reason:
        "Managing other people's tokens needs admin for every lock; you have admin for resource payments:*.",
    });
  });
});

describe("readsValues: values or digests", () => {
  it.each<[string, Grant[], boolean, boolean]>([
    ["operator of any scope", grants("payments-oncall"), false, true],
    ["viewer", grants("everyone"), false, false],
    ["viewer with CONSOLE_VIEWER_VALUES", grants("everyone"), true, true],
    ["no role, even with CONSOLE_VIEWER_VALUES", grants(), true, false],
    ["break-glass", [BREAK_GLASS_GRANT], false, true],
  ])("%s", (_name, given, viewerValues, expected) => {
    expect(readsValues(given, viewerValues)).toBe(expected);
  });
});
