/**
 * A table of bad requests: each must be answered 4xx with the expected error code, never 5xx,
 * and leave Redis exactly as it was (same keys, same values on every node). Private masters, so no
 * other test file's traffic can change the keyspace under the comparison.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as unknownApi from "@/app/api/[...path]/route";
import * as audit from "@/app/api/audit/route";
import * as events from "@/app/api/events/route";
import * as eventStream from "@/app/api/events/stream/route";
import * as health from "@/app/api/health/route";
import * as latency from "@/app/api/latency/route";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as extend from "@/app/api/locks/extend/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as release from "@/app/api/locks/release/route";
import * as locks from "@/app/api/locks/route";
import * as session from "@/app/api/session/route";
import type { ErrorBody } from "@/lib/api";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { buildRequest, startTestConsole, type CallOptions, type TestConsole } from "./helpers";

const masters = usePrivateMasters(5);
let tc: TestConsole;
let nodes: Redis[];
let baseline: string[][];

type Handler = (request: Request) => Promise<Response>;
type Case = [
  name: string,
  handler: Handler,
  path: string,
  options: CallOptions,
  status: number,
  code: string,
];

const json = (body: unknown): CallOptions => ({ body });
const raw = (rawBody: string, contentType?: string): CallOptions => ({
  rawBody,
  headers: contentType ? { "content-type": contentType } : {},
});
const ok = { resources: ["seed"], ttlMs: 1_000 };
const held = { resources: ["seed"], value: "a".repeat(40) };
const forced = { resource: "seed", expectedValue: "a".repeat(40), reason: "valid reason" };
const big = "x".repeat(10 * 1024);

const notUtf8Body = new Uint8Array(
  Buffer.concat([
    Buffer.from('{"resources":["seed'),
    Buffer.from([0xff]),
    Buffer.from('"],"ttlMs":1000}'),
  ]),
);
const overBound = "k".repeat(8 * 1024 + 1);

const cases: Case[] = [
  // Issue 11 (hardening): each of these answered 5xx, HTML, or acted on a different key before.
  [
    "acquire with a body that is not valid UTF-8",
    locks.POST,
    "/api/locks",
    { rawBody: notUtf8Body, headers: { "content-type": "application/json" } },
    400,
    "invalid_json",
  ],
  ["GET an unknown API path", unknownApi.GET, "/api/no-such-route", {}, 404, "not_found"],
  [
    "POST an unknown API path",
    unknownApi.POST,
    "/api/locks/seed/extend",
    json(ok),
    404,
    "not_found",
  ],
  [
    "read a key over 8 KiB by path",
    lockRoute.GET,
    `/api/locks/${overBound}`,
    {},
    400,
    "invalid_request",
  ],
  [
    "force-release a key over 8 KiB by base64",
    forceRelease.POST,
    "/api/locks/force-release",
    json({
      resourceBase64: Buffer.from(overBound).toString("base64"),
      force: true,
      reason: "too long key",
    }),
    400,
    "invalid_request",
  ],
  [
    "a wrong bearer token on a read",
    locks.GET,
    "/api/locks",
    { token: "wrong-token-1111111111" },
    401,
    "unauthorized",
  ],
  [
    "acquire without resources",
    locks.POST,
    "/api/locks",
    json({ ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "acquire with resources as a string",
    locks.POST,
    "/api/locks",
    json({ resources: "seed", ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "acquire with no resource",
    locks.POST,
    "/api/locks",
    json({ resources: [], ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "acquire an empty name",
    locks.POST,
    "/api/locks",
    json({ resources: [""], ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "acquire a 10 KB name",
    locks.POST,
    "/api/locks",
    json({ resources: [big], ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "acquire 33 resources",
    locks.POST,
    "/api/locks",
    json({ resources: Array.from({ length: 33 }, (_, i) => `r${i}`), ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "acquire a repeated resource",
    locks.POST,
    "/api/locks",
    json({ resources: ["a", "a"], ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "acquire a numeric resource",
    locks.POST,
    "/api/locks",
    json({ resources: [1], ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "acquire a lone surrogate name",
    locks.POST,
    "/api/locks",
    raw('{"resources":["\\ud800"],"ttlMs":1000}', "application/json"),
    400,
    "invalid_request",
  ],
  [
    "acquire a reserved redlock: key",
    locks.POST,
    "/api/locks",
    json({ resources: ["redlock:fence:seed"], ttlMs: 1_000 }),
    400,
    "reserved_resource",
  ],
  [
    "acquire without ttlMs",
    locks.POST,
    "/api/locks",
    json({ resources: ["seed"] }),
    400,
    "invalid_request",
  ],
  [
    "acquire with ttlMs as a string",
    locks.POST,
    "/api/locks",
    json({ ...ok, ttlMs: "1000" }),
    400,
    "invalid_request",
  ],
  [
    "acquire with a negative TTL",
    locks.POST,
    "/api/locks",
    json({ ...ok, ttlMs: -1 }),
    400,
    "invalid_request",
  ],
  [
    "acquire with a zero TTL",
    locks.POST,
    "/api/locks",
    json({ ...ok, ttlMs: 0 }),
    400,
    "invalid_request",
  ],
  [
    "acquire with a fractional TTL",
    locks.POST,
    "/api/locks",
    json({ ...ok, ttlMs: 1000.5 }),
    400,
    "invalid_request",
  ],
  [
    "acquire with a huge TTL",
    locks.POST,
    "/api/locks",
    json({ ...ok, ttlMs: 1e12 }),
    400,
    "invalid_request",
  ],
  [
    "acquire with an infinite TTL",
    locks.POST,
    "/api/locks",
    raw('{"resources":["seed"],"ttlMs":1e400}', "application/json"),
    400,
    "invalid_request",
  ],
  [
    "acquire with fencing as a string",
    locks.POST,
    "/api/locks",
    json({ ...ok, fencing: "yes" }),
    400,
    "invalid_request",
  ],
  [
    "acquire with an unknown field",
    locks.POST,
    "/api/locks",
    json({ ...ok, force: true }),
    400,
    "invalid_request",
  ],
  ["acquire with an array body", locks.POST, "/api/locks", json([ok]), 400, "invalid_request"],
  ["acquire with a null body", locks.POST, "/api/locks", json(null), 400, "invalid_request"],
  [
    "acquire with invalid JSON",
    locks.POST,
    "/api/locks",
    raw('{"resources": [', "application/json"),
    400,
    "invalid_json",
  ],
  [
    "acquire with an empty body",
    locks.POST,
    "/api/locks",
    raw("", "application/json"),
    400,
    "invalid_json",
  ],
  [
    "acquire as text/plain",
    locks.POST,
    "/api/locks",
    raw(JSON.stringify(ok), "text/plain"),
    415,
    "unsupported_media_type",
  ],
  [
    "acquire without a content type",
    locks.POST,
    "/api/locks",
    raw(JSON.stringify(ok)),
    415,
    "unsupported_media_type",
  ],
  [
    "acquire as a form post",
    locks.POST,
    "/api/locks",
    raw("resources=seed&ttlMs=1000", "application/x-www-form-urlencoded"),
    415,
    "unsupported_media_type",
  ],
  [
    "acquire from another origin",
    locks.POST,
    "/api/locks",
    { ...json(ok), origin: "http://evil.test" },
    403,
    "cross_origin",
  ],
  [
    "acquire from a cross-site fetch",
    locks.POST,
    "/api/locks",
    { ...json(ok), headers: { "sec-fetch-site": "cross-site" } },
    403,
    "cross_origin",
  ],
  [
    "acquire without a credential",
    locks.POST,
    "/api/locks",
    { ...json(ok), token: null },
    401,
    "unauthorized",
  ],
  [
    "acquire with a wrong token",
    locks.POST,
    "/api/locks",
    { ...json(ok), token: "wrong-token-0000000000" },
    401,
    "unauthorized",
  ],
  [
    "acquire with Basic auth",
    locks.POST,
    "/api/locks",
    { ...json(ok), token: null, headers: { authorization: "Basic YWRtaW46YWRtaW4=" } },
    401,
    "unauthorized",
  ],
  [
    "acquire with a 20 KB body",
    locks.POST,
    "/api/locks",
    json({ ...ok, padding: "p".repeat(20 * 1024) }),
    413,
    "payload_too_large",
  ],
  [
    "acquire declaring a 1 MB body",
    locks.POST,
    "/api/locks",
    { ...json(ok), headers: { "content-length": String(1024 * 1024) } },
    413,
    "payload_too_large",
  ],
  [
    "extend without value",
    extend.POST,
    "/api/locks/extend",
    json({ resources: ["seed"], ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "extend with an empty value",
    extend.POST,
    "/api/locks/extend",
    json({ ...held, value: "", ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "extend with a 1000-char value",
    extend.POST,
    "/api/locks/extend",
    json({ ...held, value: "v".repeat(1000), ttlMs: 1_000 }),
    400,
    "invalid_request",
  ],
  [
    "extend with a fractional TTL",
    extend.POST,
    "/api/locks/extend",
    json({ ...held, ttlMs: 99.9 }),
    400,
    "invalid_request",
  ],
  [
    "extend without a credential",
    extend.POST,
    "/api/locks/extend",
    { ...json({ ...held, ttlMs: 1_000 }), token: null },
    401,
    "unauthorized",
  ],
  [
    "release with a numeric value",
    release.POST,
    "/api/locks/release",
    json({ resources: ["seed"], value: 42 }),
    400,
    "invalid_request",
  ],
  [
    "release with resources as an object",
    release.POST,
    "/api/locks/release",
    json({ resources: { 0: "seed" }, value: "a".repeat(40) }),
    400,
    "invalid_request",
  ],
  [
    "release from another origin",
    release.POST,
    "/api/locks/release",
    { ...json(held), origin: "null" },
    403,
    "cross_origin",
  ],
  [
    "force-release without a reason",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ resource: "seed", expectedValue: "a".repeat(40) }),
    400,
    "invalid_request",
  ],
  [
    "force-release with a 1-char reason",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ ...forced, reason: "x" }),
    400,
    "invalid_request",
  ],
  [
    "force-release with a blank reason",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ ...forced, reason: "     " }),
    400,
    "invalid_request",
  ],
  [
    "force-release with a 1000-char reason",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ ...forced, reason: "r".repeat(1000) }),
    400,
    "invalid_request",
  ],
  [
    "force-release with neither expectedValue nor force",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ resource: "seed", reason: "valid reason" }),
    400,
    "invalid_request",
  ],
  [
    "force-release with force: false and no value",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ resource: "seed", force: false, reason: "valid reason" }),
    400,
    "invalid_request",
  ],
  [
    "force-release with both expectedValue and force",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ ...forced, force: true }),
    400,
    "invalid_request",
  ],
  [
    "force-release naming resource twice",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ ...forced, resourceBase64: "c2VlZA==" }),
    400,
    "invalid_request",
  ],
  [
    "force-release with bad base64",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ resourceBase64: "!!!", force: true, reason: "valid reason" }),
    400,
    "invalid_request",
  ],
  [
    "force-release a base64 key longer than a resource name may be",
    forceRelease.POST,
    "/api/locks/force-release",
    json({
      resourceBase64: Buffer.alloc(8 * 1024 + 1, 0xff).toString("base64"),
      force: true,
      reason: "valid reason",
    }),
    400,
    "invalid_request",
  ],
  [
    "force-release a reserved key",
    forceRelease.POST,
    "/api/locks/force-release",
    json({ resource: "redlock:audit", force: true, reason: "valid reason" }),
    400,
    "reserved_resource",
  ],
  [
    "force-release without a credential",
    forceRelease.POST,
    "/api/locks/force-release",
    { ...json(forced), token: null },
    401,
    "unauthorized",
  ],
  ["list with limit=0", locks.GET, "/api/locks?limit=0", {}, 400, "invalid_request"],
  ["list with limit=abc", locks.GET, "/api/locks?limit=abc", {}, 400, "invalid_request"],
  ["list with limit=1.5", locks.GET, "/api/locks?limit=1.5", {}, 400, "invalid_request"],
  ["list with limit=100000", locks.GET, "/api/locks?limit=100000", {}, 400, "invalid_request"],
  ["list with an unknown state", locks.GET, "/api/locks?state=stolen", {}, 400, "invalid_request"],
  [
    "list with a 257-character pattern",
    locks.GET,
    `/api/locks?match=${"*a".repeat(128)}b`,
    {},
    400,
    "invalid_request",
  ],
  [
    "list with a forged cursor",
    locks.GET,
    "/api/locks?cursor=%21%21%21",
    {},
    400,
    "invalid_request",
  ],
  ["read one with a broken escape", lockRoute.GET, "/api/locks/%zz", {}, 400, "invalid_request"],
  ["read one 10 KB name", lockRoute.GET, `/api/locks/${big}`, {}, 400, "invalid_request"],
  [
    "read one reserved key",
    lockRoute.GET,
    "/api/locks/redlock%3Aaudit",
    {},
    400,
    "reserved_resource",
  ],
  [
    "read one with bad base64",
    lockRoute.GET,
    "/api/locks/%21%21?encoding=base64",
    {},
    400,
    "invalid_request",
  ],
  [
    "read one with an unknown encoding",
    lockRoute.GET,
    "/api/locks/abc?encoding=rot13",
    {},
    400,
    "invalid_request",
  ],

  [
    "latency with a negative window",
    latency.GET,
    "/api/latency?window=-5",
    {},
    400,
    "invalid_request",
  ],
  [
    "latency with a window in years",
    latency.GET,
    "/api/latency?window=1y",
    {},
    400,
    "invalid_request",
  ],
  [
    "latency with a 48 h window",
    latency.GET,
    "/api/latency?window=48h",
    {},
    400,
    "invalid_request",
  ],
  ["audit with limit=0", audit.GET, "/api/audit?limit=0", {}, 400, "invalid_request"],
  [
    "events with an unknown kind",
    events.GET,
    "/api/events?kind=stolen",
    {},
    400,
    "invalid_request",
  ],
  [
    "events with a glob too long",
    events.GET,
    `/api/events?match=${"*".repeat(300)}`,
    {},
    400,
    "invalid_request",
  ],
  [
    "event stream with owner not label=value",
    eventStream.GET,
    "/api/events/stream?owner=x",
    {},
    400,
    "invalid_request",
  ],
  ["events with limit=99999", events.GET, "/api/events?limit=99999", {}, 400, "invalid_request"],
  ["audit with limit=99999", audit.GET, "/api/audit?limit=99999", {}, 400, "invalid_request"],
  [
    "login as text/plain",
    session.POST,
    "/api/session",
    { ...raw('{"token":"x"}', "text/plain"), token: null },
    415,
    "unsupported_media_type",
  ],
  [
    "login with invalid JSON",
    session.POST,
    "/api/session",
    { ...raw("{token", "application/json"), token: null },
    400,
    "invalid_json",
  ],
  [
    "login without a token",
    session.POST,
    "/api/session",
    { ...json({}), token: null },
    400,
    "invalid_request",
  ],
  [
    "login from another origin",
    session.POST,
    "/api/session",
    { ...json({ token: "x" }), token: null, origin: "http://evil.test" },
    403,
    "cross_origin",
  ],
  [
    "login with a wrong token",
    session.POST,
    "/api/session",
    { ...json({ token: "wrong-token-0000000000" }), token: null },
    401,
    "unauthorized",
  ],
  [
    "DELETE on the lock list",
    locks.DELETE,
    "/api/locks",
    { method: "DELETE" },
    405,
    "method_not_allowed",
  ],
  ["PUT on health", health.PUT, "/api/health", { method: "PUT" }, 405, "method_not_allowed"],
  [
    "logout from another origin",
    session.DELETE,
    "/api/session",
    { method: "DELETE", token: null, origin: "http://evil.test" },
    403,
    "cross_origin",
  ],
];

/**
 * Every key of every node with its serialized value (DUMP), so any write shows up. The audit
 * stream only by name: wrong credentials are audited on purpose (rate-limited); every other bad
 * request leaves it as it was, which the entry ids below check.
 */
async function keyspace(): Promise<string[][]> {
  return Promise.all(
    nodes.map(async (node) => {
      const keys = (await node.keys("*")).sort();
      const dumps = await Promise.all(keys.map((key) => node.dumpBuffer(key)));
      return keys.map((key, index) =>
        key === "redlock:audit" ? key : `${key}=${dumps[index]?.toString("base64")}`,
      );
    }),
  );
}

/** Actions in the audit stream other than the audited wrong credentials. */
async function auditedActions(): Promise<string[]> {
  const entries = await nodes[0]!.xrange("redlock:audit", "-", "+");
  return entries
    .map(([, fields]) => fields.join(" "))
    .filter((text) => !text.includes("auth-failure"));
}

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  tc = startTestConsole(masters.masters().urls, { lockMatch: ["*"] });
  await Promise.all(nodes.map((node) => node.set("seed", "a".repeat(40), "PX", 600_000)));
  await Promise.all(nodes.map((node) => node.xadd("redlock:audit", "*", "id", "seed-entry")));
  baseline = await keyspace();
});

afterAll(async () => {
  await tc.close();
  await disconnect(nodes);
});

describe(`${cases.length} bad requests`, () => {
  it("has at least 40 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)("%s -> %i", async (_name, handler, path, options, status, code) => {
    const response = await handler(buildRequest(path, options));
    const body = (await response.json()) as ErrorBody;
    expect(response.status).toBe(status);
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(0);
  });

  it("left every key of every node unchanged", async () => {
    for (const [, handler, path, options] of cases) {
      const response = await handler(buildRequest(path, options));
      expect(response.status).toBeLessThan(500);
    }
    expect(await keyspace()).toEqual(baseline);
    expect(await auditedActions()).toHaveLength(1); // the seed entry only
    expect(baseline[0]!.length).toBe(2);
  });
});
