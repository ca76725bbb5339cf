/**
 * The rule that makes a key a semaphore's or read-write lock's member (groups.ts), as a table: the
 * key's shape, the count recorded beside it, and its index below that count.
 */
import { describe, expect, it } from "vitest";
import { membershipOf } from "@/lib/server/locks/read/group-count";
import { groupState } from "@/lib/server/locks/rows/groups";

const counted = (groupCount: number | null) => [{ groupCount }, null, undefined];

describe("which keys are members of a group", () => {
  it.each([
    ["{orders}#0", counted(3), "{orders}#"],
    ["{orders}#2", counted(3), "{orders}#"],
    ["{orders}#3", counted(3), null],
    ["{orders}#0", counted(null), null],
    ["{orders}#0", [null, null], null],
    ["{orders}#01", counted(3), null],
    ["{orders}#w", counted(4), "{orders}#rw"],
    ["{orders}#r3", counted(4), "{orders}#rw"],
    ["{orders}#r4", counted(4), null],
    ["orders#0", counted(3), null],
    ["{a}b}#1", counted(2), "{a}b}#"],
  ] as const)("%s with the count %j is in group %s", (key, reads, rowKey) => {
    expect(membershipOf(key, reads)?.rowKey ?? null).toBe(rowKey);
  });

  it("says a group's state: a conflict first, then held, then being released, then partial", () => {
    expect(groupState(["partial", "held"])).toBe("held");
    expect(groupState(["held", "conflict"])).toBe("conflict");
    expect(groupState(["partial", "releasing"])).toBe("releasing");
    expect(groupState([])).toBeNull();
  });
});
