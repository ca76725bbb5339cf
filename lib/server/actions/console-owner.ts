import "server-only";
/**
 * Owner labels of the locks the console itself takes for an operator (the playground's acquire), so
 * the overview names them like any other holder: the console as the service, and who pressed the
 * button (the principal's audit label: `session:<8 hex>` for a browser session, `token` for the bearer; never the credential).
 * The library adds host and pid itself.
 *
 * Each console instance also writes its own random id (`console`): the playground's extend and
 * release act only on values carrying it, so a value pasted from a lock page (another holder's)
 * is refused there and goes through force-release, which reserves it until its holder lets go.
 */
import { randomBytes } from "node:crypto";
import { decodeValue } from "@redlock-console/redlock";
import type { Principal } from "../auth/credentials";

export const CONSOLE_SERVICE = "redlock-console";

export function consoleOwnerLabels(principal: Pick<Principal, "label">): Record<string, string> {
  return { service: CONSOLE_SERVICE, operator: principal.label };
}

/** One id per console (per Redlock instance it acts through), made on first use. */
const instanceIds = new WeakMap<object, string>();

/** The id the console acting through `redlock` writes into the values it acquires. */
export function consoleInstanceId(redlock: object): string {
  let id = instanceIds.get(redlock);
  if (id === undefined) {
    id = randomBytes(8).toString("hex");
    instanceIds.set(redlock, id);
  }
  return id;
}

/** Whether `value` was acquired by the console acting through `redlock`. */
export function isConsoleLock(redlock: object, value: string): boolean {
  const labels = decodeValue(value)?.owner.labels;
  return labels?.service === CONSOLE_SERVICE && labels.console === consoleInstanceId(redlock);
}
