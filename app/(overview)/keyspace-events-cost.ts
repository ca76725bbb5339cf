/**
 * What turning keyspace events on would cost a master, in words, from its write rate (the node
 * report's `writeRate`): one notification per key written or expired, two for a write that sets a
 * TTL (`SET … PX` publishes `set` and `expire`). Pure, so the wording is tested as a table.
 */
import type { WriteRate } from "@/lib/api";

const count = (perS: number) => Math.round(perS).toLocaleString("en-US");

export function keyspaceEventsCost(nodeId: string, rate: WriteRate | null | undefined): string {
  if (!rate)
    return (
      `Events would make ${nodeId} publish one notification per key it writes or expires; ` +
      "its write rate shows here after the next node report."
    );
  const { keyWritesPerS: writes, expiriesPerS: expiries } = rate;
  const seconds = (rate.measuredOverMs / 1_000).toFixed(1);
  const low = writes + expiries;
  const high = 2 * writes + expiries;
  const published = low === high ? count(low) : `${count(low)}–${count(high)}`;
  return (
    `Events would cost ${nodeId}: it writes about ${count(writes)} keys/s and expires ` +
    `${count(expiries)}/s (last ${seconds} s), so ~${published} notifications/s published ` +
    "(two for a write that sets a TTL). The console receives only those under LOCK_MATCH and " +
    "reads only lock-shaped keys."
  );
}
