/**
 * A lock the console acquires carries owner labels naming the console and the operator, in its
 * value (one key, no owner entry); a force-release deletes it, and with a 1.x lock its owner entry too.
 */
import type { Redis } from "ioredis";
import { decodeValue, legacyOwnerKey } from "@redlock-console/redlock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as locks from "@/app/api/locks/route";
import type { ForceReleaseResponse, LockGrantResponse, LockResponse } from "@/lib/api";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];

beforeAll(() => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
});
afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

describe("console locks and their owner entries", () => {
  it("labels a playground acquire with the console and the operator, in the value; force-release deletes it", async () => {
    const resource = `${tc.prefix}owned`;
    const acquired = await call<LockGrantResponse>(locks.POST, "/api/locks", {
      body: { resources: [resource], ttlMs: 60_000 },
    });
    expect(acquired.status).toBe(201);

    const detail = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${encodeURIComponent(resource)}`,
    );
    const owner = detail.body.lock?.owner;
    expect(owner?.kind).toBe("labelled");
    if (owner?.kind !== "labelled") return;
    expect(owner.labels.service).toBe("redlock-console");
    expect(owner.labels.operator).toMatch(/^break-glass \((token|sign-in [0-9A-Za-z_-]{8})\)$/);
    expect(owner.labels.pid).toBe(String(process.pid));
    expect(owner.ttlMs).toBe(60_000);
    expect(owner.extensions).toBeNull();
    // Any redis-cli user sees the same: the owner is in the value, and no other key was written.
    for (const value of await Promise.all(nodes.map((node) => node.get(resource))))
      expect(decodeValue(value!)?.owner.labels.operator).toBe(owner.labels.operator);
    expect(await Promise.all(nodes.map((node) => node.exists(legacyOwnerKey(resource))))).toEqual(
      Array(5).fill(0),
    );

    const forced = await call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", {
      body: {
        resource,
        expectedValue: acquired.body.lock.value,
        noSession: "release-now",
        reason: "owner test",
      },
    });
    expect(forced.body.deletedCount).toBe(5);
    expect(await Promise.all(nodes.map((node) => node.exists(resource)))).toEqual(Array(5).fill(0));
  });

  it("deletes a 1.x lock's owner entry with the lock", async () => {
    const resource = `${tc.prefix}legacy`;
    const value = "d".repeat(40);
    const ownerEntry = legacyOwnerKey(resource);
    await Promise.all(
      nodes.map((node) =>
        node
          .multi()
          .set(resource, value, "PX", 60_000)
          .hset(ownerEntry, { value, labels: "{}", acquiredAt: "1", extensions: "0" })
          .pexpire(ownerEntry, 60_000)
          .exec(),
      ),
    );
    const forced = await call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", {
      body: {
        resource,
        expectedValue: value,
        noSession: "release-now",
        reason: "legacy owner test",
      },
    });
    expect(forced.body.deletedCount).toBe(5);
    expect(await Promise.all(nodes.map((node) => node.exists(resource, ownerEntry)))).toEqual(
      Array(5).fill(0),
    );
  });
});
