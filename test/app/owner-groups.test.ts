import { describe, expect, it } from "vitest";
import {
  groupByLabel,
  labelNames,
  matchesOwner,
  parseOwnerFilter,
} from "@/app/(overview)/owner-groups";
import type { LockOwner } from "@/lib/api";

const owned = (resource: string, labels: Record<string, string>) => ({
  resource,
  owner: { kind: "labelled", labels, acquiredAt: 0, extensions: 0 } as LockOwner,
});
const foreign = (resource: string) => ({
  resource,
  owner: { kind: "unknown", format: "string" } as LockOwner,
});

const rows = [
  owned("a", { service: "billing", host: "h1" }),
  foreign("b"),
  owned("c", { service: "api" }),
  owned("d", { service: "billing", host: "h2" }),
];

describe("owner label filter", () => {
  it("parses name=value, a bare name (any value) and nothing", () => {
    expect(parseOwnerFilter(" service = billing ")).toEqual({ name: "service", value: "billing" });
    expect(parseOwnerFilter("host")).toEqual({ name: "host", value: null });
    expect(parseOwnerFilter("  ")).toBeNull();
  });

  it("keeps rows whose owner has the label (and value); unknown owners never match", () => {
    const keep = (text: string) =>
      rows.filter((row) => matchesOwner(row, parseOwnerFilter(text))).map((row) => row.resource);
    expect(keep("service=billing")).toEqual(["a", "d"]);
    expect(keep("host")).toEqual(["a", "d"]);
    expect(keep("")).toEqual(["a", "b", "c", "d"]);
  });
});

describe("grouping by an owner label", () => {
  it("puts one header per value, in order, rows without the label last, order kept within groups", () => {
    const items = groupByLabel(rows, "service").map((item) =>
      item.kind === "group" ? `[${item.value ?? "none"}:${item.count}]` : item.row.resource,
    );
    expect(items).toEqual(["[api:1]", "c", "[billing:2]", "a", "d", "[none:1]", "b"]);
  });

  it("leaves rows as they are without a label, and lists the label names seen", () => {
    expect(groupByLabel(rows, null).every((item) => item.kind === "lock")).toBe(true);
    expect(labelNames(rows)).toEqual(["host", "service"]);
  });
});
