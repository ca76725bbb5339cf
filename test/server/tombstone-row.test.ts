/**
 * A force-release's tombstone in the rows (no Redis): recognised as a lock format of its own, and
 * the row is "releasing" (being released), never free; a tombstone beside another value stays a
 * conflict.
 */
import { describe, expect, it } from "vitest";
import { foldResource } from "@/lib/server/locks/rows/fold";
import { toKeyState } from "@/lib/server/locks/read/read-node";
import { decodeTombstone, encodeTombstone, isTombstone } from "@/lib/server/locks/read/tombstone";

const ids = ["node-1", "node-2", "node-3", "node-4", "node-5"];
const replaced = `rl1:${"a".repeat(40)}:{"acquiredAt":1,"ttlMs":10000,"labels":{},"session":"${"b".repeat(32)}"}`;
const tombstone = encodeTombstone(replaced, {
  auditId: "9f1c0e4e-0000-4000-8000-000000000000",
  by: "token",
  reason: "stuck",
  at: 1_700_000_000_000,
  session: "b".repeat(32),
});
const stateOf = (value: string, pttlMs = 5_000) => toKeyState([pttlMs, value, false, 0, false])!;

describe("tombstones in the rows", () => {
  it("encodes rlx:<token of the replaced value>:<json> and decodes it back", () => {
    expect(tombstone.startsWith(`rlx:${"a".repeat(40)}:`)).toBe(true);
    expect(isTombstone(tombstone)).toBe(true);
    expect(isTombstone(replaced)).toBe(false);
    expect(isTombstone("rlx:short:{}")).toBe(false);
    expect(decodeTombstone(tombstone)).toEqual({
      token: "a".repeat(40),
      auditId: "9f1c0e4e-0000-4000-8000-000000000000",
      by: "token",
      reason: "stuck",
      at: 1_700_000_000_000,
      session: "b".repeat(32),
    });
  });

  it("reads a tombstone as the format 'tombstone'", () => {
    expect(stateOf(tombstone)).toMatchObject({
      format: "tombstone",
      value: tombstone,
      owner: null,
    });
    expect(stateOf(replaced).format).toBe("string");
  });

  it("folds a tombstone on a majority, or on fewer nodes, into a releasing row", () => {
    const everywhere = foldResource(
      "r",
      ids.map(() => stateOf(tombstone)),
      ids,
      3,
    )!;
    expect(everywhere).toMatchObject({
      state: "releasing",
      format: "tombstone",
      owner: { kind: "unknown", format: "tombstone" },
      quorum: 5,
    });
    const few = foldResource(
      "r",
      [stateOf(tombstone), stateOf(tombstone), null, null, null],
      ids,
      3,
    )!;
    expect(few.state).toBe("releasing");
  });

  it("keeps a tombstone beside another value a conflict", () => {
    const row = foldResource(
      "r",
      [stateOf(tombstone), stateOf(tombstone), stateOf(tombstone), stateOf(replaced), null],
      ids,
      3,
    )!;
    expect(row.state).toBe("conflict");
  });
});
