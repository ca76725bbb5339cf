import { describe, expect, it } from "vitest";
import { groupBadgeText, memberText } from "@/components/locks/group-text";
import type { GroupMember, LockGroupDetail, LockRow } from "@/lib/api";

const heldRow = (validityMs: number | null, state: LockRow["state"] = "held"): LockRow => ({
  resource: "{exports}#2",
  state,
  value: "rl1:…",
  format: "string",
  quorum: 3,
  quorumSize: 3,
  validityMs,
  nodes: [],
  owner: {
    kind: "labelled",
    labels: { host: "worker-7", pid: "4242" },
    acquiredAt: 0,
    ttlMs: 10_000,
    extensions: null,
  },
  heldSince: 0,
  waiters: { count: 0, oldestSince: null },
  flags: [],
});

const permit = (index: number, lock: LockRow | null): GroupMember => ({
  kind: "permit",
  index,
  resource: `{exports}#${index}`,
  lock,
  holderSession: null,
});

const semaphore: LockGroupDetail = {
  kind: "semaphore",
  semaphore: { kind: "redlock", permits: 3, used: 1 },
  members: [],
  readOnly: false,
};

describe("a semaphore's members in words", () => {
  it.each([
    [permit(2, heldRow(4_100)), "permit #2 of 3: held by worker-7 / 4242 for 4.1 s more"],
    [permit(0, null), "permit #0 of 3: free"],
    [permit(1, heldRow(-1)), "permit #1 of 3: held by worker-7 / 4242 with no expiry"],
    [
      permit(1, heldRow(125_000, "releasing")),
      "permit #1 of 3: being released by worker-7 / 4242 for 2 min 5 s more",
    ],
  ])("%#: %s", (member, words) => {
    expect(memberText(semaphore, member)).toBe(words);
  });

  it("names a row's kind and use in its badge", () => {
    expect(groupBadgeText({ semaphore: { kind: "redlock", permits: 3, used: 2 } })).toBe(
      "semaphore: 2 of 3 permits in use",
    );
    expect(groupBadgeText({ semaphore: { kind: "redis-semaphore", permits: null, used: 1 } })).toBe(
      "redis-semaphore (read-only): 1 holder",
    );
    expect(groupBadgeText({ readWrite: { readerSlots: 8, readers: 2, writer: false } })).toBe(
      "read-write: 2 readers, no writer",
    );
    expect(groupBadgeText({})).toBeNull();
  });
});
