import "server-only";
/**
 * Whether a node publishes the keyspace notifications the index needs (notify-keyspace-events), and
 * turning them on (CONSOLE_ENABLE_KEYSPACE_EVENTS, or an admin's action on the node card). Without
 * them the node is polled: correct between passes only, slower, within its pace.
 */
import { redactText } from "../../../logger";
import type { ConfigClient } from "../io/connections";
import { missingEventFlags, NEEDED_EVENT_FLAGS } from "./event-flags";

/** What the node's notify-keyspace-events is: the flags, or why they could not be read. */
export type FlagsRead =
  { readonly ok: true; readonly flags: string } | { readonly ok: false; readonly reason: string };

export async function readEventFlags(client: ConfigClient): Promise<FlagsRead> {
  try {
    const reply = (await client.config("GET", "notify-keyspace-events")) as string[];
    return { ok: true, flags: reply[1] ?? "" };
  } catch (error) {
    // Managed services often rename CONFIG away: without it the flags cannot be known.
    const reason = `CONFIG GET notify-keyspace-events failed (${redactText(String(error))}): polling`;
    return { ok: false, reason };
  }
}

/** The command an operator runs on the node to give it every flag the index needs. */
export const enableCommandFor = (flags: string): string =>
  `CONFIG SET notify-keyspace-events "${flags + missingEventFlags(flags).join("")}"`;

/** The flags added (`from` → `to`), or why CONFIG SET was refused (with the command to run instead). */
export type TurnOn =
  | { readonly ok: true; readonly from: string; readonly to: string }
  | { readonly ok: false; readonly error: string; readonly command: string };

/** CONFIG SETs only the flags `flags` lacks (none lacking: nothing sent). */
export async function turnOnEventFlags(client: ConfigClient, flags: string): Promise<TurnOn> {
  const to = flags + missingEventFlags(flags).join("");
  if (to === flags) return { ok: true, from: flags, to };
  try {
    await client.config("SET", "notify-keyspace-events", to);
    return { ok: true, from: flags, to };
  } catch (error) {
    return { ok: false, error: redactText(String(error)), command: enableCommandFor(flags) };
  }
}

/** Why a node whose flags were read is polled, or null when it has them all. */
export function lackingReason(flags: string): string | null {
  const missing = missingEventFlags(flags);
  if (missing.length === 0) return null;
  return `notify-keyspace-events is "${flags}", lacking ${missing.join("")} (needs ${NEEDED_EVENT_FLAGS}); set CONSOLE_ENABLE_KEYSPACE_EVENTS=true or configure the node: polling`;
}

/** Why a node is polled after CONFIG SET was refused, said once, with the fix beside it. */
export const refusedReason = (
  flags: string,
  refused: { error: string; command: string },
  retryInMs: number,
): string =>
  `notify-keyspace-events is "${flags}" and CONFIG SET was refused (${refused.error}): polling. ` +
  `Run ${refused.command} on the node as a user allowed to, or allow this user "+config|set"; ` +
  `the console tries again in ${Math.round(retryInMs / 60_000)} min`;
