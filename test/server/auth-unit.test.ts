import { describe, expect, it } from "vitest";
import {
  createSessionValue,
  readCookie,
  safeEqual,
  verifySessionValue,
} from "@/lib/server/auth/credentials";
import { createFailureLimiter, createReadLimiter } from "@/lib/server/auth/rate-limit";

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

describe("failed-credential limiter", () => {
  it("blocks a client after 10 failures in a minute, and frees it when the window passes", () => {
    const limiter = createFailureLimiter();
    for (let index = 0; index < 10; index += 1) limiter.recordFailure("10.0.0.1", 1_000 + index);
    expect(limiter.retryAfterMs("10.0.0.1", 2_000)).toBeGreaterThan(0);
    expect(limiter.retryAfterMs("10.0.0.2", 2_000)).toBe(0);
    expect(limiter.retryAfterMs("10.0.0.1", 61_001)).toBe(0);
  });

  it("has no window shared by everyone: failures from many addresses never block another one", () => {
    const limiter = createFailureLimiter();
    for (let index = 0; index < 5_000; index += 1) limiter.recordFailure(`198.51.${index}`, 1_000);
    expect(limiter.retryAfterMs("admin-address", 1_001)).toBe(0);
  });

  it("forgets the least recently seen clients first, so a spray cannot wipe an active guesser", () => {
    const limiter = createFailureLimiter({ windowMs: 60_000, perClient: 3, maxClients: 100 });
    for (let index = 0; index < 3; index += 1) limiter.recordFailure("guesser", 1_000);
    for (let index = 0; index < 99; index += 1) limiter.recordFailure(`spray-${index}`, 1_000);
    limiter.recordFailure("guesser", 1_001);
    for (let index = 99; index < 150; index += 1) limiter.recordFailure(`spray-${index}`, 1_002);
    expect(limiter.retryAfterMs("guesser", 1_003)).toBeGreaterThan(0);
  });
});

describe("read limiter", () => {
  it("allows a burst, then about perSecond per second, per client", () => {
    const limiter = createReadLimiter({ perSecond: 2, burst: 4, maxClients: 100 });
    for (let index = 0; index < 4; index += 1) expect(limiter.take("a", 1_000)).toBe(0);
    expect(limiter.take("a", 1_000)).toBe(500);
    expect(limiter.take("b", 1_000)).toBe(0);
    expect(limiter.take("a", 1_500)).toBe(0);
    expect(limiter.take("a", 1_500)).toBeGreaterThan(0);
  });
});
