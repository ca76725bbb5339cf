/**
 * A lock the console acquires carries owner labels naming the console and the operator, and a
 * force-release removes the library's owner entry together with the lock.
 */
import type { Redis } from "ioredis";
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
  it("labels a playground acquire with the console and the operator; force-release deletes the entry", async () => {
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
    expect(owner.labels.operator).toMatch(/^(token|session:[0-9a-f]{8})$/);
    expect(owner.labels.pid).toBe(String(process.pid));
    expect(owner.extensions).toBe(0);

    const ownerEntry = `redlock:owner:${resource}`;
    expect(await Promise.all(nodes.map((node) => node.exists(ownerEntry)))).toEqual(
      Array(5).fill(1),
    );
    const forced = await call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource, expectedValue: acquired.body.lock.value, reason: "owner entry test" },
    });
    expect(forced.body.deletedCount).toBe(5);
    expect(await Promise.all(nodes.map((node) => node.exists(resource, ownerEntry)))).toEqual(
      Array(5).fill(0),
    );
  });
});
