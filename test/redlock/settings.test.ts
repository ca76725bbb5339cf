/** settings.ts alone: no Redis involved. */
import { describe, expect, it } from "vitest";
import {
  assertResources,
  assertTtl,
  defaultSettings,
  resolveSettings,
  retryWaitMs,
  validityMs,
} from "../../lib/redlock/settings";

describe("settings", () => {
  it("keeps node-redlock's defaults, frozen", () => {
    expect(Object.isFrozen(defaultSettings)).toBe(true);
    expect(defaultSettings).toMatchObject({
      driftFactor: 0.01,
      retryCount: 10,
      retryDelay: 200,
      retryJitter: 100,
      automaticExtensionThreshold: 500,
      session: { heartbeatMs: 1_000 },
    });
  });

  it("takes a session heartbeat period, or false for no session", () => {
    expect(resolveSettings(defaultSettings, { session: false }).session).toBe(false);
    expect(resolveSettings(defaultSettings, { session: { heartbeatMs: 250 } }).session).toEqual({
      heartbeatMs: 250,
    });
    expect(resolveSettings(defaultSettings, { session: {} }).session).toEqual({});
  });

  it("reuses the base object when a call overrides nothing (signal and undefined do not count)", () => {
    expect(resolveSettings(defaultSettings)).toBe(defaultSettings);
    expect(
      resolveSettings(defaultSettings, {
        retryCount: undefined,
        signal: new AbortController().signal,
      } as never),
    ).toBe(defaultSettings);
  });

  it("merges overrides over the base, ignoring undefined values", () => {
    const merged = resolveSettings(defaultSettings, { retryCount: 3, retryDelay: undefined });
    expect(merged.retryCount).toBe(3);
    expect(merged.retryDelay).toBe(200);
    expect(merged).not.toBe(defaultSettings);
  });

  it.each([
    [{ driftFactor: -0.1 }, /driftFactor/],
    [{ retryDelay: Number.NaN }, /retryDelay/],
    [{ retryJitter: -1 }, /retryJitter/],
    [{ nodeTimeout: 0 }, /nodeTimeout/],
    [{ retryCount: 1.5 }, /retryCount/],
    [{ retryCount: -2 }, /retryCount/],
    [{ restartQuarantine: -5 }, /restartQuarantine/],
    [{ session: { heartbeatMs: 0 } }, /session\.heartbeatMs/],
    [{ session: { heartbeatMs: 2.5 } }, /session\.heartbeatMs/],
    [{ session: true } as never, /"session"/],
  ])("refuses %o with an error naming the setting", (override, message) => {
    expect(() => resolveSettings(defaultSettings, override)).toThrow(message);
  });

  it("computes validity as TTL - elapsed - (drift · TTL + 2 ms), rounded down", () => {
    expect(validityMs(10_000, 5, 0.01)).toBe(10_000 - 5 - 102);
    expect(validityMs(1_000, 0.5, 0)).toBe(997);
    expect(validityMs(100, 99, 0.01)).toBeLessThan(0);
  });

  it("waits retryDelay ± retryJitter, never below zero", () => {
    const settings = { ...defaultSettings, retryDelay: 200, retryJitter: 100 };
    for (let i = 0; i < 200; i += 1) {
      const waitMs = retryWaitMs(settings);
      expect(waitMs).toBeGreaterThanOrEqual(100);
      expect(waitMs).toBeLessThanOrEqual(300);
    }
    expect(
      retryWaitMs({ ...defaultSettings, retryDelay: 0, retryJitter: 50 }),
    ).toBeGreaterThanOrEqual(0);
  });

  it("validates TTLs and resource lists", () => {
    expect(() => assertTtl(1.5)).toThrow(/integer/);
    expect(() => assertTtl(0)).toThrow(RangeError);
    expect(() => assertResources([])).toThrow(/At least one resource/);
    expect(() => assertResources(["a", ""])).toThrow(/non-empty string/);
    expect(() => assertResources(["a", "a"])).toThrow(/repeat/);
    expect(() => assertResources(["a", "b"])).not.toThrow();
  });
});
