/**
 * Under `next start`, instrumentation.ts builds the console at boot in its own bundle, so the
 * console's classes (ApiError, the library's errors) are other copies than the route handlers'.
 * This file reproduces that: the routes are imported normally, the console from a fresh module
 * graph (vi.resetModules), and its errors must still map to their 4xx, never to a 500.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import * as locks from "@/app/api/locks/route";
import type { ErrorBody } from "@/lib/api";
import { setDefaultConsole } from "@/lib/server/default-console";
import type { ConsoleContext } from "@/lib/server/console";
import { connect, disconnect, sharedUrls } from "../masters";
import { ADMIN_TOKEN, call } from "./helpers";

let ctx: ConsoleContext;
let nodes: Redis[];
const resource = `other-instance-${process.pid}-${Date.now()}`;

beforeAll(async () => {
  vi.resetModules();
  const { createConsole } = await import("@/lib/server/console");
  const { configFor } = await import("@/lib/server/config");
  ctx = createConsole(
    configFor(sharedUrls(), { adminToken: ADMIN_TOKEN, probeIntervalMs: 0, logLevel: "silent" }),
  );
  setDefaultConsole(ctx);
  nodes = connect(sharedUrls());
});

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.del(resource)));
  setDefaultConsole(undefined);
  await ctx.close();
  await disconnect(nodes);
});

it("answers 401, not 500, when the guard of a console from another module copy refuses", async () => {
  const response = await call<ErrorBody>(locks.POST, "/api/locks", {
    body: { resources: [resource], ttlMs: 5_000 },
    token: null,
  });
  expect([response.status, response.body.error.code]).toEqual([401, "unauthorized"]);
});

it("answers 409 resource_locked, not 500, when that console's Redlock is refused", async () => {
  await Promise.all(nodes.map((node) => node.set(resource, "a".repeat(40), "PX", 10_000)));
  const response = await call<ErrorBody>(locks.POST, "/api/locks", {
    body: { resources: [resource], ttlMs: 5_000 },
  });
  expect([response.status, response.body.error.code]).toEqual([409, "resource_locked"]);
});
