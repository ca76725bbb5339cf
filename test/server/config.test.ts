import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/server/config";

const valid = {
  REDLOCK_NODES: "redis://127.0.0.1:7001,rediss://user:s3cret@db.example:6380/2",
  CONSOLE_ADMIN_TOKEN: "x".repeat(16),
};

function messageOf(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("parseConfig accepted a bad environment");
}

describe("console configuration", () => {
  it("parses a valid environment with defaults for everything else", () => {
    const config = parseConfig(valid);
    expect(config.nodeUrls).toEqual([
      "redis://127.0.0.1:7001",
      "rediss://user:s3cret@db.example:6380/2",
    ]);
    expect(config).toMatchObject({
      readOnly: false,
      publicRead: true,
      lockMatch: ["*"],
      probeIntervalMs: 10_000,
      restartQuarantineMs: 0,
      longHeldMs: 300_000,
      longWaitMs: 60_000,
    });
  });

  it("reads the long-held and long-wait thresholds, refusing nonsense", () => {
    expect(
      parseConfig({ ...valid, CONSOLE_LONG_HELD_MS: "600000", CONSOLE_LONG_WAIT_MS: "5000" }),
    ).toMatchObject({ longHeldMs: 600_000, longWaitMs: 5_000 });
    const message = messageOf({ ...valid, CONSOLE_LONG_HELD_MS: "5m", CONSOLE_LONG_WAIT_MS: "0" });
    expect(message).toContain("CONSOLE_LONG_HELD_MS: must be a whole number");
    expect(message).toContain("CONSOLE_LONG_WAIT_MS: must be at least 100");
  });

  it("reads booleans, integers and lists", () => {
    const config = parseConfig({
      ...valid,
      CONSOLE_READ_ONLY: "yes",
      CONSOLE_PUBLIC_READ: "0",
      LOCK_MATCH: "orders:*, jobs:*",
      CONSOLE_PROBE_INTERVAL_MS: "0",
    });
    expect(config).toMatchObject({
      readOnly: true,
      publicRead: false,
      lockMatch: ["orders:*", "jobs:*"],
      probeIntervalMs: 0,
    });
  });

  it("lists every bad variable in one message", () => {
    const message = messageOf({
      REDLOCK_NODES: "http://wrong,redis://ok:1",
      CONSOLE_READ_ONLY: "maybe",
      CONSOLE_PROBE_INTERVAL_MS: "-5",
      CONSOLE_NODE_TIMEOUT_MS: "1.5",
      CONSOLE_ADMIN_TOKEN: "short",
    });
    for (const name of [
      "REDLOCK_NODES[0]",
      "CONSOLE_READ_ONLY",
      "CONSOLE_PROBE_INTERVAL_MS",
      "CONSOLE_NODE_TIMEOUT_MS",
      "CONSOLE_ADMIN_TOKEN",
    ]) {
      expect(message).toContain(name);
    }
  });

  it("requires REDLOCK_NODES, and an admin token unless read-only", () => {
    const message = messageOf({});
    expect(message).toContain("REDLOCK_NODES");
    expect(message).toContain("CONSOLE_ADMIN_TOKEN");
    expect(() =>
      parseConfig({ REDLOCK_NODES: "redis://h:1", CONSOLE_READ_ONLY: "true" }),
    ).not.toThrow();
  });

  it("never echoes a value, so a password in a bad URL stays out of the message", () => {
    const message = messageOf({
      REDLOCK_NODES: "redis://:hunter2@",
      CONSOLE_ADMIN_TOKEN: "x".repeat(16),
    });
    expect(message).toContain("REDLOCK_NODES[0]");
    expect(message).not.toContain("hunter2");
  });
});
