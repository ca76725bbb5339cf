import { describe, expect, it } from "vitest";
import { formatClock } from "@/components/ui/format";
import { answerHeadline, offersDeleteNow } from "@/app/locks/[...resource]/force-release-answer";

const untilMs = Date.UTC(2026, 10, 27, 12, 0, 9);
const nodes = Array.from({ length: 5 }, (_, index) => ({
  nodeId: `n${index}`,
  outcome: "tombstoned" as const,
  value: "rl1:…",
  pttlMs: 8_600,
  latencyMs: 1,
}));
const base = {
  resource: "orders:42",
  tombstonedCount: 5,
  deletedCount: 0,
  reservedUntil: untilMs,
  overlapPossibleUntil: null,
  majority: true,
  nodes,
};

describe("the force-release answer in words (issue 39 item 6)", () => {
  it("a tombstone: reserved at most until reservedUntil", () => {
    const answer = { ...base, mode: "tombstoned" as const };
    expect(answerHeadline(answer)).toBe(
      `Force-released orders:42: tombstoned on 5 of 5 nodes: nobody else gets it before its holder has stopped, at most until ${formatClock(untilMs)}.`,
    );
    expect(offersDeleteNow(answer)).toBe(false);
  });

  it("a delete-now: two holders possible until overlapPossibleUntil", () => {
    const answer = {
      ...base,
      mode: "deleted" as const,
      deletedCount: 5,
      tombstonedCount: 0,
      reservedUntil: null,
      overlapPossibleUntil: untilMs,
    };
    expect(answerHeadline(answer)).toContain(
      `deleted on 5 of 5 nodes: two processes may act as holders until ${formatClock(untilMs)}.`,
    );
  });

  it("a second force-release over a standing tombstone: already reserved, delete-now offered", () => {
    const answer = { ...base, mode: "unchanged" as const, tombstonedCount: 0 };
    expect(answerHeadline(answer)).toContain(`already reserved until ${formatClock(untilMs)}`);
    expect(offersDeleteNow(answer)).toBe(true);
    expect(offersDeleteNow({ mode: "unchanged", reservedUntil: null })).toBe(false);
  });

  it("a value on fewer than a majority says so", () => {
    const answer = { ...base, mode: "tombstoned" as const, majority: false };
    expect(answerHeadline(answer)).toContain("fewer than a majority of the nodes");
    expect(answerHeadline({ ...answer, mode: "absent" })).toContain("no node held it");
  });
});
