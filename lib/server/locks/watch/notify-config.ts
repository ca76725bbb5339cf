import "server-only";
/**
 * Whether a node publishes the keyspace notifications the index needs (notify-keyspace-events),
 * turning them on when CONSOLE_ENABLE_KEYSPACE_EVENTS allows. Without them the node is polled:
 * correct, slower, within the same budget.
 */
import { logger, redactText } from "../../logger";
import type { ConfigClient } from "./connections";
import { missingEventFlags, NEEDED_EVENT_FLAGS } from "./event-flags";

/** On, or off with the reason shown to operators. */
export type NotificationsCheck =
  { readonly on: true } | { readonly on: false; readonly reason: string };

export async function checkNotifications(
  client: ConfigClient,
  enable: boolean,
  address: string,
): Promise<NotificationsCheck> {
  let flags: string;
  try {
    const reply = (await client.config("GET", "notify-keyspace-events")) as string[];
    flags = reply[1] ?? "";
  } catch (error) {
    // Managed services often rename CONFIG away: without it the flags cannot be known.
    const reason = `CONFIG GET notify-keyspace-events failed (${redactText(String(error))}): polling`;
    return { on: false, reason };
  }
  const missing = missingEventFlags(flags);
  if (missing.length === 0) return { on: true };
  if (!enable) {
    const reason = `notify-keyspace-events is "${flags}", lacking ${missing.join("")} (needs ${NEEDED_EVENT_FLAGS}); set CONSOLE_ENABLE_KEYSPACE_EVENTS=true or configure the node: polling`;
    return { on: false, reason };
  }
  try {
    await client.config("SET", "notify-keyspace-events", flags + missing.join(""));
  } catch (error) {
    const reason = `notify-keyspace-events is "${flags}" and CONFIG SET failed (${redactText(String(error))}): polling`;
    return { on: false, reason };
  }
  logger.info(
    { node: address, flags: flags + missing.join("") },
    "turned on keyspace notifications (CONSOLE_ENABLE_KEYSPACE_EVENTS)",
  );
  return { on: true };
}
