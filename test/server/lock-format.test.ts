/**
 * Issue 32 row 8, the classification itself: which string values are locks, with and without a
 * TTL, and which hashes are Redisson locks without one (read-node.ts's toKeyState on the replies
 * the read script gives).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { stringLockFormat } from "@/lib/server/locks/read/lock-format";
import { toKeyState } from "@/lib/server/locks/read/read-node";
import { encodeValue } from "@/lib/redlock/value";

const hex40 = randomBytes(20).toString("hex");
const rl1 = encodeValue(hex40, '{"service":"billing"}', Date.now(), 10_000);
const tombstone = `rlx:${hex40}:{"auditId":"1-0","by":"token","reason":"stuck","at":1}`;

describe("what is a lock value", () => {
  it.each([
    ["this library (rl1:)", rl1, "string"],
    ["a tombstone (rlx:)", tombstone, "tombstone"],
    ["a bare 40-hex token (node-redlock, owner: false)", hex40, "string"],
    ["a 32-hex token (redis-py's Lock)", randomBytes(16).toString("hex"), "string"],
    ["redsync's base64 token", randomBytes(16).toString("base64"), "string"],
    ["redsync's raw URL base64 token", randomBytes(16).toString("base64url"), "string"],
    ["a UUID (redlock-py, redlock-rb)", randomUUID(), "string"],
  ])("recognises %s with a TTL", (_name, value, format) => {
    expect(stringLockFormat(value, 10_000)).toBe(format);
  });

  it.each([
    ["JSON", '{"id":1,"name":"alice"}'],
    ["text", "hello world"],
    ["a password", "s3cr3t"],
    ["a 39-hex string", "a".repeat(39)],
    ["an rl1: prefix without token and JSON", "rl1:hello"],
    ["an empty string", ""],
  ])("skips %s, with or without a TTL", (_name, value) => {
    expect(stringLockFormat(value, 10_000)).toBeNull();
    expect(stringLockFormat(value, -1)).toBeNull();
  });

  it("without a TTL keeps only the unmistakable formats: rl1: and rlx:", () => {
    expect(stringLockFormat(rl1, -1)).toBe("string");
    expect(stringLockFormat(tombstone, -1)).toBe("tombstone");
    expect(stringLockFormat(hex40, -1)).toBeNull();
    expect(stringLockFormat(randomUUID(), -1)).toBeNull();
    expect(stringLockFormat(randomBytes(16).toString("base64"), -1)).toBeNull();
  });

  it("takes a hash without a TTL as a Redisson lock only with <uuid>:<thread> holders", () => {
    const holder = `${randomUUID()}:57`;
    expect(toKeyState([-1, [holder, "1"], false, 0, false])).toMatchObject({
      value: holder,
      pttlMs: -1,
      format: "redisson-hash",
    });
    expect(toKeyState([-1, ["region:1", "5"], false, 0, false])).toBeNull();
    expect(toKeyState([5_000, ["region:1", "5"], false, 0, false])).toMatchObject({
      format: "redisson-hash",
    });
    expect(toKeyState([-1, "hello world", false, 0, false])).toBeNull();
  });
});
