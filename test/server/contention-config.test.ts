/** CONSOLE_WAIT_OBJECTIVES: parsed once with the rest of the environment, every mistake named. */
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/server/config";

const base = { REDLOCK_NODES: "redis://127.0.0.1:7000", CONSOLE_READ_ONLY: "true" };

describe("CONSOLE_WAIT_OBJECTIVES", () => {
  it("is empty by default, and reads a JSON array of objectives with windowDays defaulting to 30", () => {
    expect(parseConfig(base).waitObjectives).toEqual([]);
    const config = parseConfig({
      ...base,
      CONSOLE_WAIT_OBJECTIVES:
        '[{"name":"orders","match":"orders:*","thresholdMs":200,"target":0.99}]',
    });
    expect(config.waitObjectives).toEqual([
      { name: "orders", match: "orders:*", thresholdMs: 200, target: 0.99, windowDays: 30 },
    ]);
  });

  it.each([
    ["not JSON", "{orders", /JSON array/],
    ["a target of 1 (no budget)", '[{"name":"o","thresholdMs":1,"target":1}]', /target/],
    ["a name that is no metric label", '[{"name":"a b","thresholdMs":1,"target":0.9}]', /name/],
    [
      "an unknown field",
      '[{"name":"o","thresholdMs":1,"target":0.9,"treshold":2}]',
      /treshold|Unrecognized/,
    ],
    [
      "two objectives of one name",
      '[{"name":"o","thresholdMs":1,"target":0.9},{"name":"o","thresholdMs":2,"target":0.9}]',
      /distinct/,
    ],
  ])("stops the start on %s, naming the variable", (_, text, message) => {
    expect(() => parseConfig({ ...base, CONSOLE_WAIT_OBJECTIVES: text })).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, CONSOLE_WAIT_OBJECTIVES: text })).toThrow(
      /CONSOLE_WAIT_OBJECTIVES/,
    );
    expect(() => parseConfig({ ...base, CONSOLE_WAIT_OBJECTIVES: text })).toThrow(message);
  });
});
