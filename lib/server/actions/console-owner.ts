import "server-only";
/**
 * Owner labels of the locks the console itself takes for an operator (the playground's acquire), so
 * the overview names them like any other holder: the console as the service, and who pressed the
 * button (the principal's audit label: `session:<8 hex>` for a browser session, `token` for the bearer; never the credential).
 * The library adds host and pid itself.
 */
import type { Principal } from "../auth/credentials";

export const CONSOLE_SERVICE = "redlock-console";

export function consoleOwnerLabels(principal: Pick<Principal, "label">): Record<string, string> {
  return { service: CONSOLE_SERVICE, operator: principal.label };
}
