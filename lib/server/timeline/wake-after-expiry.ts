import "server-only";
/**
 * A tombstone that ran out unacknowledged wakes the next waiter at once (issue 39, item 1). A
 * force-release's tombstone (docs/holder-sessions.md) ends by its holder's acknowledgement, whose
 * release wakes the longest waiter, or by its TTL, which wakes nobody: contenders would sleep until
 * their next retry. The timeline says which (reservation.ts: `reservation-ended` once it left the
 * majority by expiry, once per tombstone), and then the console runs the library's own wake step,
 * wakeNextWaiter: one script per node, nothing published when nobody waits.
 */
import { wakeNextWaiter } from "@redlock-console/redlock";
import type { ConsoleNode } from "../node-registry";
import type { Timeline } from "./timeline";

/** Subscribes the wake to `timeline`'s transitions; returns the unsubscribe. */
export function wakeAfterExpiredTombstones(
  timeline: Pick<Timeline, "subscribe">,
  nodes: readonly ConsoleNode[],
): () => void {
  const clients = nodes.map((node) => node.client);
  return timeline.subscribe((transition) => {
    if (transition.kind !== "reservation-ended") return;
    // The key's bytes: the display name, or its base64 when they are not valid UTF-8.
    const key = transition.resourceBase64
      ? Buffer.from(transition.resourceBase64, "base64")
      : transition.resource;
    void wakeNextWaiter(clients, key);
  });
}
