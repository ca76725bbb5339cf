/**
 * Issue 49 row 1, the browser's side: the tokens page offers everyone's tokens (listing them, and
 * so revoking them) only where the server's policy allows `token-admin`, and tells a scoped admin
 * why in the policy's own words.
 */
import { describe, expect, it } from "vitest";
import { ownersChoice } from "@/app/tokens/owners-choice";
import { BREAK_GLASS_GRANT, type Grant } from "@/lib/server/auth/identity";

const grant = (role: Grant["role"], resources: string[] | null, rule: string): Grant => ({
  role,
  resources,
  services: null,
  rule,
});
const paymentsAdmin = grant("admin", ["payments:*"], "CONSOLE_RBAC[0] (group payments-admins)");
const everyonesViewer = grant("viewer", null, "CONSOLE_RBAC[1] (group everyone)");
const everyonesAdmin = grant("admin", null, "CONSOLE_RBAC[2] (group sre)");

describe("whose tokens the tokens page offers", () => {
  it.each<[string, Grant[], boolean]>([
    ["admin of every lock", [everyonesAdmin], true],
    ["break-glass", [BREAK_GLASS_GRANT], true],
    ["admin of payments:* only", [paymentsAdmin], false],
    ["admin of payments:* and everyone's viewer", [paymentsAdmin, everyonesViewer], false],
    ["viewer", [everyonesViewer], false],
  ])("%s", (_name, grants, everyone) => {
    expect(ownersChoice(grants).everyone).toBe(everyone);
  });

  it("says to a scoped admin, in words, why only their own tokens are shown", () => {
    expect(ownersChoice([paymentsAdmin, everyonesViewer]).onlyOwnBecause).toBe(
      "Managing other people's tokens needs admin for every lock; you have admin for resource payments:*.",
    );
  });

  it("says nothing to those who never expected to manage others' tokens", () => {
    expect(ownersChoice([everyonesViewer]).onlyOwnBecause).toBeNull();
    expect(ownersChoice([everyonesAdmin]).onlyOwnBecause).toBeNull();
  });
});
