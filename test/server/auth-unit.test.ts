import { describe, expect, it } from "vitest";
import {
  createSessionValue,
  readCookie,
  safeEqual,
  verifySessionValue,
} from "@/lib/server/auth/credentials";
import { createRateLimiter } from "@/lib/server/auth/rate-limit";

const token = "admin-token-for-unit-tests-0001";

describe("session cookies", () => {
  it("verifies its own cookie until it expires", () => {
    const { value, expiresAt } = createSessionValue(token, 60, 1_000_000);
    expect(verifySessionValue(token, value, 1_000_001)?.expiresAt).toBe(expiresAt);
    expect(verifySessionValue(token, value, expiresAt + 1)).toBeNull();
  });

  it("rejects a tampered cookie, or one signed under another admin token", () => {
    const { value } = createSessionValue(token, 60);
    const [expires, nonce, mac] = value.split(".");
    expect(verifySessionValue(token, `${Number(expires) + 999_999}.${nonce}.${mac}`)).toBeNull();
    expect(verifySessionValue("another-admin-token-000000", value)).toBeNull();
    expect(verifySessionValue(token, "garbage")).toBeNull();
  });

  it("compares strings of different lengths without throwing", () => {
    expect(safeEqual("a", "a-much-longer-string")).toBe(false);
    expect(safeEqual(token, token)).toBe(true);
  });

  it("reads one cookie among several", () => {
    expect(readCookie("a=1; redlock_console_session=x.y.z; b=2", "redlock_console_session")).toBe(
      "x.y.z",
    );
    expect(readCookie(null, "redlock_console_session")).toBeUndefined();
  });
});

describe("login rate limiter", () => {
  it("blocks a client after 5 failures in a minute, and frees it when the window passes", () => {
    const limiter = createRateLimiter();
    for (let index = 0; index < 5; index += 1) limiter.recordFailure("10.0.0.1", 1_000 + index);
    expect(limiter.retryAfterMs("10.0.0.1", 2_000)).toBeGreaterThan(0);
    expect(limiter.retryAfterMs("10.0.0.2", 2_000)).toBe(0);
    expect(limiter.retryAfterMs("10.0.0.1", 61_001)).toBe(0);
  });

  it("bounds guessing from many forged addresses with a global window", () => {
    const limiter = createRateLimiter({ windowMs: 60_000, perClient: 5, global: 30 });
    for (let index = 0; index < 30; index += 1) limiter.recordFailure(`forged-${index}`, 1_000);
    expect(limiter.retryAfterMs("fresh-address", 1_001)).toBeGreaterThan(0);
  });
});
