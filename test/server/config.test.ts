import { describe, expect, it } from "vitest";
import { ConfigError, isClusterUrl, parseConfig } from "@/lib/server/config";

const valid = {
  REDLOCK_NODES: "redis://127.0.0.1:7001,rediss://user:s3cret@db.example:6380/2",
  CONSOLE_ADMIN_TOKEN: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
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

  it("sizes the heap compactly unless told CONSOLE_HEAP_MODE=default, refusing other modes", () => {
    expect(parseConfig(valid).heapMode).toBe("compact");
    expect(parseConfig({ ...valid, CONSOLE_HEAP_MODE: "default" }).heapMode).toBe("default");
    expect(messageOf({ ...valid, CONSOLE_HEAP_MODE: "small" })).toContain(
      'CONSOLE_HEAP_MODE: must be "compact" or "default"',
    );
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

  it("takes a Redis Cluster as a node with ?cluster=true, and refuses a cluster URL that selects a db", () => {
    const config = parseConfig({
      ...valid,
      REDLOCK_NODES: "redis://a:7000?cluster=true,rediss://u:p@b:7001?cluster=1,redis://c:1",
    });
    expect(config.nodeUrls).toHaveLength(3);
    expect(isClusterUrl(config.nodeUrls[0]!)).toBe(true);
    expect(isClusterUrl(config.nodeUrls[1]!)).toBe(true);
    expect(isClusterUrl(config.nodeUrls[2]!)).toBe(false);
    const message = messageOf({
      ...valid,
      REDLOCK_NODES: "redis://c:1,redis://a:7000/2?cluster=true,redis://b:7000?cluster=maybe",
    });
    expect(message).toContain("REDLOCK_NODES[1]: cluster= must be true or false");
    expect(message).toContain("REDLOCK_NODES[2]");
    expect(message).not.toContain("REDLOCK_NODES[0]");
  });

  it("never echoes a value, so a password in a bad URL stays out of the message", () => {
    const message = messageOf({
      REDLOCK_NODES: "redis://:hunter2@",
      CONSOLE_ADMIN_TOKEN: valid.CONSOLE_ADMIN_TOKEN,
    });
    expect(message).toContain("REDLOCK_NODES[0]");
    expect(message).not.toContain("hunter2");
  });

  it.each([
    ["a 27-character human-chosen token", "correcthorsebatterystaple27"],
    ["a long token of few characters", "abababababababababababababababababab"],
    ["one character repeated", "x".repeat(64)],
  ])("refuses %s as the admin token, saying how to generate one", (_name, token) => {
    const message = messageOf({ ...valid, CONSOLE_ADMIN_TOKEN: token });
    expect(message).toContain("CONSOLE_ADMIN_TOKEN: is too weak");
    expect(message).toContain("openssl rand -hex 32");
    expect(message).not.toContain(token);
  });

  it("accepts generated tokens: openssl rand -hex 32, and npm start's 24 random bytes in base64url", () => {
    for (const token of [valid.CONSOLE_ADMIN_TOKEN, "q2V9xk_3LbT0-aPzR8mYc1WnHd5sJfEu"]) {
      expect(parseConfig({ ...valid, CONSOLE_ADMIN_TOKEN: token }).adminToken).toBe(token);
    }
  });
});
