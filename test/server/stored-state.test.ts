/**
 * The node store's compact state (56 bytes, one per lock per node) answers what the reads said: the
 * format and generation it packs into one integer, and the acquiredAt of an rl1: value that it reads
 * from the value when asked rather than keeping it. No Redis: reads built by hand.
 */
import { describe, expect, it } from "vitest";
import { lockFormatSchema, type OwnerInfo } from "@/lib/api";
import { encodeValue } from "@/lib/redlock/value";
import { ownerOfValue } from "@/lib/server/locks/read/ownership";
import type { NodeKeyState } from "@/lib/server/locks/read/key-state";
import { StoredState } from "@/lib/server/locks/watch/store/indexed-state";

const read = (value: string, fields: Partial<NodeKeyState> = {}): NodeKeyState => ({
  value,
  pttlMs: 30_000,
  format: "string",
  holdCount: null,
  owner: null,
  ...fields,
});
const token = "ab".repeat(20);
const acquiredAtMs = 1_790_000_000_123;

describe("a stored state", () => {
  it.each(
    lockFormatSchema.options.flatMap((format) =>
      [0, 1, 7, 123_456].map((g) => [format, g] as const),
    ),
  )("keeps format %s and generation %i", (format, generation) => {
    const state = new StoredState(read("v", { format }), 5_000, "v", generation);
    expect(state.format).toBe(format);
    expect(state.generation).toBe(generation);
    expect(state.expiresAtMs).toBe(5_000);
  });

  it("reads an rl1: value's acquiredAt from the value, whatever the order of its fields", () => {
    const ours = encodeValue(token, '{"service":"billing"}', acquiredAtMs, 30_000);
    const reordered = `rl1:${token}:{"ttlMs":30000,"labels":{},"acquiredAt":${acquiredAtMs}}`;
    for (const value of [ours, reordered]) {
      const state = new StoredState(read(value, { owner: ownerOfValue(value) }), 5_000, value, 1);
      expect(state.acquiredAtMs).toBe(acquiredAtMs);
      expect(state.legacyOwner).toBeNull();
    }
  });

  it("takes a 1.x owner entry's acquiredAt, and has none without an owner or without a TTL", () => {
    const legacy: OwnerInfo = { labels: {}, acquiredAt: 42_000, ttlMs: null, extensions: 2 };
    expect(new StoredState(read("v", { owner: legacy }), 5_000, "v", 0)).toMatchObject({
      acquiredAtMs: 42_000,
      legacyOwner: legacy,
    });
    // An rl1:-looking value the read found no owner in (garbled JSON) has none either.
    const garbled = `rl1:${token}:{"acquiredAt":12,`;
    expect(new StoredState(read(garbled), -1, garbled, 0)).toMatchObject({
      acquiredAtMs: null,
      expiresAtMs: -1,
    });
  });
});
