/** Issue 42 item 5: a token's grant lies within one of its owner's grants (role and scope paired). */
import { describe, expect, it } from "vitest";
import type { Grant } from "@/lib/server/auth/identity";
import {
  coveringGrant,
  globWithin,
  type RequestedGrant,
} from "@/lib/server/auth/personal-tokens/scope";

describe("globWithin", () => {
  it.each<[string, string, boolean]>([
    ["payments:42", "payments:*", true],
    ["payments:eu:*", "payments:*", true],
    ["payments:*", "payments:*", true],
    ["anything", "*", true],
    ["*", "payments:*", false],
    ["orders:1", "payments:*", false],
    ["pay*", "payments:*", false],
    ["payments:42", "payments:4?", false], // not decided: refused
    ["payments:4?", "payments:4?", true],
    ["payments:42", "payments:42", true],
    ["payments:421", "payments:42", false],
    ["p?yments:1", "p?yments:*", false], // outer prefix has a metacharacter: refused
  ])("%s within %s: %s", (inner, outer, expected) => {
    expect(globWithin(inner, outer)).toBe(expected);
  });
});

const operatorOfPayments: Grant = {
  role: "operator",
  resources: null,
  services: ["payments"],
  rule: "CONSOLE_RBAC[0] (group payments-oncall)",
};
const everyonesViewer: Grant = {
  role: "viewer",
  resources: null,
  services: null,
  rule: "CONSOLE_RBAC[1] (group everyone)",
};
const ordersAdmin: Grant = {
  role: "admin",
  resources: ["orders:*"],
  services: null,
  rule: "CONSOLE_RBAC[2] (group orders-admin)",
};
const owner = [operatorOfPayments, everyonesViewer, ordersAdmin];
const ask = (
  role: Grant["role"],
  resources: string[] | null = null,
  services: string[] | null = null,
): RequestedGrant => ({ role, resources, services });

describe("coveringGrant: each rule's role stays with its own scope", () => {
  it.each<[string, RequestedGrant, Grant | undefined]>([
    ["operator for service payments", ask("operator", null, ["payments"]), operatorOfPayments],
    ["viewer for service payments", ask("viewer", null, ["payments"]), operatorOfPayments],
    ["viewer for everything", ask("viewer"), everyonesViewer],
    ["operator for everything (payments' role with everyone's scope)", ask("operator"), undefined],
    ["operator for service orders", ask("operator", null, ["orders"]), undefined],
    [
      "operator for services payments and orders",
      ask("operator", null, ["payments", "orders"]),
      undefined,
    ],
    [
      "operator for payments:* held by payments",
      ask("operator", ["payments:*"], ["payments"]),
      operatorOfPayments,
    ],
    ["admin for orders:eu:*", ask("admin", ["orders:eu:*"]), ordersAdmin],
    ["admin for orders:* and payments:*", ask("admin", ["orders:*", "payments:*"]), undefined],
    ["admin for everything", ask("admin"), undefined],
  ])("%s", (_name, requested, expected) => {
    expect(coveringGrant(requested, owner)).toBe(expected);
  });

  it("covers nothing for an owner with no grants", () => {
    expect(coveringGrant(ask("viewer"), [])).toBeUndefined();
  });
});
