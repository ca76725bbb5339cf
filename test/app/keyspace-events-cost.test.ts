/**
 * The node card's words for what keyspace events would cost a master (issue 33 part 2): the range
 * of notifications from its measured write rate, or, before a rate exists, what events publish.
 */
import { describe, expect, it } from "vitest";
import { keyspaceEventsCost } from "@/app/(overview)/keyspace-events-cost";

describe("keyspaceEventsCost", () => {
  it.each([
    [
      "a busy master: writes and expiries, the range up to two per write",
      { keyWritesPerS: 1_200, expiriesPerS: 30, measuredOverMs: 2_000 },
      "Events would cost node-3: it writes about 1,200 keys/s and expires 30/s (last 2.0 s), so ~1,230–2,430 notifications/s published",
    ],
    [
      "an idle master: nothing to publish",
      { keyWritesPerS: 0, expiriesPerS: 0, measuredOverMs: 1_500 },
      "it writes about 0 keys/s and expires 0/s (last 1.5 s), so ~0 notifications/s published",
    ],
  ])("%s", (_case, rate, words) => {
    const text = keyspaceEventsCost("node-3", rate);
    expect(text).toContain(words);
    expect(text).toContain("reads only lock-shaped keys");
  });

  it("says what events publish while the write rate is not measured yet", () => {
    expect(keyspaceEventsCost("node-3", null)).toBe(
      "Events would make node-3 publish one notification per key it writes or expires; its write rate shows here after the next node report.",
    );
  });
});
