/**
 * A person's grants from their groups (CONSOLE_RBAC): one grant per matching rule, its role with
 * that rule's own scope, so an operator of payments who is also everyone's viewer cannot force
 * orders' locks. A person no rule names gets the default role over everything, or nothing.
 */
import type { RbacRule } from "../rbac-config";
import type { Grant } from "./identity";

export function ruleName(rule: RbacRule, index: number): string {
  return `CONSOLE_RBAC[${index}] (group ${rule.group})`;
}

export function grantsFor(
  groups: readonly string[],
  rules: readonly RbacRule[],
  defaultRole: "viewer" | "none",
): Grant[] {
  const member = new Set(groups);
  const grants: Grant[] = rules.flatMap((rule, index) =>
    member.has(rule.group)
      ? [
          {
            role: rule.role,
            resources: rule.resources ?? null,
            services: rule.services ?? null,
            rule: ruleName(rule, index),
          },
        ]
      : [],
  );
  if (grants.length > 0 || defaultRole === "none") return grants;
  return [
    { role: "viewer", resources: null, services: null, rule: "CONSOLE_RBAC_DEFAULT_ROLE (viewer)" },
  ];
}
