import { describe, expect, it } from "vitest";
import { sortLocks, type SortableLockRow } from "@/app/(overview)/sort-locks";

function row(resource: string, overrides: Partial<SortableLockRow> = {}): SortableLockRow {
  return {
    resource,
    state: "held",
    quorum: 5,
    validUntilMs: 1_000,
    ...overrides,
  };
}

describe("sortLocks", () => {
  it("sorts by resource name by default, descending when asked", () => {
    const rows = [row("b"), row("c"), row("a")];
    expect(sortLocks(rows, "resource", "asc").map((r) => r.resource)).toEqual(["a", "b", "c"]);
    expect(sortLocks(rows, "resource", "desc").map((r) => r.resource)).toEqual(["c", "b", "a"]);
  });

  it("puts trouble first when sorting by state: conflict, partial, held", () => {
    const rows = [row("a"), row("b", { state: "partial" }), row("c", { state: "conflict" })];
    expect(sortLocks(rows, "state", "asc").map((r) => r.state)).toEqual([
      "conflict",
      "partial",
      "held",
    ]);
  });

  it("orders validity with no-majority rows first and never-expiring rows last", () => {
    const rows = [
      row("never", { validUntilMs: Number.POSITIVE_INFINITY }),
      row("late", { validUntilMs: 9_000 }),
      row("none", { validUntilMs: null }),
      row("soon", { validUntilMs: 2_000 }),
    ];
    expect(sortLocks(rows, "validity", "asc").map((r) => r.resource)).toEqual([
      "none",
      "soon",
      "late",
      "never",
    ]);
  });

  it("breaks ties by resource name so the order is stable across polls", () => {
    const rows = [row("b", { quorum: 3 }), row("a", { quorum: 3 }), row("c", { quorum: 2 })];
    expect(sortLocks(rows, "quorum", "asc").map((r) => r.resource)).toEqual(["c", "a", "b"]);
  });

  it("does not reorder the input array", () => {
    const rows = [row("b"), row("a")];
    sortLocks(rows, "resource", "asc");
    expect(rows.map((r) => r.resource)).toEqual(["b", "a"]);
  });
});

describe("sortLocks by ownership", () => {
  it("orders by time held, shortest first, with unknown ages last", () => {
    const rows = [
      row("old", { heldSince: 1_000 }),
      row("foreign", { heldSince: null }),
      row("new", { heldSince: 5_000 }),
    ];
    expect(sortLocks(rows, "held", "asc").map((r) => r.resource)).toEqual([
      "new",
      "old",
      "foreign",
    ]);
    expect(sortLocks(rows, "held", "desc").map((r) => r.resource)).toEqual([
      "foreign",
      "old",
      "new",
    ]);
  });

  it("orders by waiter count", () => {
    const rows = [
      row("a", { waiters: { count: 3 } }),
      row("b", { waiters: { count: 0 } }),
      row("c", { waiters: { count: 1 } }),
    ];
    expect(sortLocks(rows, "waiters", "desc").map((r) => r.resource)).toEqual(["a", "c", "b"]);
  });
});
