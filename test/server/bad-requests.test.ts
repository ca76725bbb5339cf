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
import { ERROR_STATUS, type ErrorCode } from "@/lib/api";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { buildRequest, startTestConsole, type CallOptions, type TestConsole } from "./helpers";

const masters = usePrivateMasters(5);
let tc: TestConsole;
let nodes: Redis[];
let baseline: string[][];

type Method = "GET" | "POST" | "PUT" | "DELETE";
type Handler = (request: Request) => Promise<Response>;

/** A request that must be refused with `code`, at the status the error-code table gives it. */
interface BadRequest extends Omit<CallOptions, "method"> {
  readonly name: string;
  readonly method: Method;
  readonly path: string;
  readonly code: ErrorCode;
}

/** The bad requests to one route file, and its handlers by method. */
interface RouteCases {
  readonly route: string;
  readonly handlers: Partial<Record<Method, Handler>>;
  readonly cases: readonly BadRequest[];
}

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

// Issue 11 (hardening): each case marked so answered 5xx, HTML, or acted on a different key before.
const ROUTES: RouteCases[] = [
  {
    route: "/api/locks",
    handlers: locks,
    cases: [
      // issue 11
      {
        name: "acquire with a body that is not valid UTF-8",
        method: "POST",
        path: "/api/locks",
        rawBody: notUtf8Body,
        headers: { "content-type": "application/json" },
        code: "invalid_json",
      },
      // issue 11
      {
        name: "a wrong bearer token on a read",
        method: "GET",
        path: "/api/locks",
        token: "wrong-token-1111111111",
        code: "unauthorized",
      },
      {
        name: "acquire without resources",
        method: "POST",
        path: "/api/locks",
        body: { ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "acquire with resources as a string",
        method: "POST",
        path: "/api/locks",
        body: { resources: "seed", ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "acquire with no resource",
        method: "POST",
        path: "/api/locks",
        body: { resources: [], ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "acquire an empty name",
        method: "POST",
        path: "/api/locks",
        body: { resources: [""], ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "acquire a 10 KB name",
        method: "POST",
        path: "/api/locks",
        body: { resources: [big], ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "acquire 33 resources",
        method: "POST",
        path: "/api/locks",
        body: { resources: Array.from({ length: 33 }, (_, i) => `r${i}`), ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "acquire a repeated resource",
        method: "POST",
        path: "/api/locks",
        body: { resources: ["a", "a"], ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "acquire a numeric resource",
        method: "POST",
        path: "/api/locks",
        body: { resources: [1], ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "acquire a lone surrogate name",
        method: "POST",
        path: "/api/locks",
        rawBody: '{"resources":["\\ud800"],"ttlMs":1000}',
        headers: { "content-type": "application/json" },
        code: "invalid_request",
      },
      {
        name: "acquire a reserved redlock: key",
        method: "POST",
        path: "/api/locks",
        body: { resources: ["redlock:fence:seed"], ttlMs: 1_000 },
        code: "reserved_resource",
      },
      {
        name: "acquire without ttlMs",
        method: "POST",
        path: "/api/locks",
        body: { resources: ["seed"] },
        code: "invalid_request",
      },
      {
        name: "acquire with ttlMs as a string",
        method: "POST",
        path: "/api/locks",
        body: { ...ok, ttlMs: "1000" },
        code: "invalid_request",
      },
      {
        name: "acquire with a negative TTL",
        method: "POST",
        path: "/api/locks",
        body: { ...ok, ttlMs: -1 },
        code: "invalid_request",
      },
      {
        name: "acquire with a zero TTL",
        method: "POST",
        path: "/api/locks",
        body: { ...ok, ttlMs: 0 },
        code: "invalid_request",
      },
      {
        name: "acquire with a fractional TTL",
        method: "POST",
        path: "/api/locks",
        body: { ...ok, ttlMs: 1000.5 },
        code: "invalid_request",
      },
      {
        name: "acquire with a huge TTL",
        method: "POST",
        path: "/api/locks",
        body: { ...ok, ttlMs: 1e12 },
        code: "invalid_request",
      },
      {
        name: "acquire with an infinite TTL",
        method: "POST",
        path: "/api/locks",
        rawBody: '{"resources":["seed"],"ttlMs":1e400}',
        headers: { "content-type": "application/json" },
        code: "invalid_request",
      },
      {
        name: "acquire with fencing as a string",
        method: "POST",
        path: "/api/locks",
        body: { ...ok, fencing: "yes" },
        code: "invalid_request",
      },
      {
        name: "acquire with an unknown field",
        method: "POST",
        path: "/api/locks",
        body: { ...ok, force: true },
        code: "invalid_request",
      },
      {
        name: "acquire with an array body",
        method: "POST",
        path: "/api/locks",
        body: [ok],
        code: "invalid_request",
      },
      {
        name: "acquire with a null body",
        method: "POST",
        path: "/api/locks",
        body: null,
        code: "invalid_request",
      },
      {
        name: "acquire with invalid JSON",
        method: "POST",
        path: "/api/locks",
        rawBody: '{"resources": [',
        headers: { "content-type": "application/json" },
        code: "invalid_json",
      },
      {
        name: "acquire with an empty body",
        method: "POST",
        path: "/api/locks",
        rawBody: "",
        headers: { "content-type": "application/json" },
        code: "invalid_json",
      },
      {
        name: "acquire as text/plain",
        method: "POST",
        path: "/api/locks",
        rawBody: JSON.stringify(ok),
        headers: { "content-type": "text/plain" },
        code: "unsupported_media_type",
      },
      {
        name: "acquire without a content type",
        method: "POST",
        path: "/api/locks",
        rawBody: JSON.stringify(ok),
        code: "unsupported_media_type",
      },
      {
        name: "acquire as a form post",
        method: "POST",
        path: "/api/locks",
        rawBody: "resources=seed&ttlMs=1000",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        code: "unsupported_media_type",
      },
      {
        name: "acquire from another origin",
        method: "POST",
        path: "/api/locks",
        body: ok,
        origin: "http://evil.test",
        code: "cross_origin",
      },
      {
        name: "acquire from a cross-site fetch",
        method: "POST",
        path: "/api/locks",
        body: ok,
        headers: { "sec-fetch-site": "cross-site" },
        code: "cross_origin",
      },
      {
        name: "acquire without a credential",
        method: "POST",
        path: "/api/locks",
        body: ok,
        token: null,
        code: "unauthorized",
      },
      {
        name: "acquire with a wrong token",
        method: "POST",
        path: "/api/locks",
        body: ok,
        token: "wrong-token-0000000000",
        code: "unauthorized",
      },
      {
        name: "acquire with Basic auth",
        method: "POST",
        path: "/api/locks",
        body: ok,
        token: null,
        headers: { authorization: "Basic YWRtaW46YWRtaW4=" },
        code: "unauthorized",
      },
      {
        name: "acquire with a 20 KB body",
        method: "POST",
        path: "/api/locks",
        body: { ...ok, padding: "p".repeat(20 * 1024) },
        code: "payload_too_large",
      },
      {
        name: "acquire declaring a 1 MB body",
        method: "POST",
        path: "/api/locks",
        body: ok,
        headers: { "content-length": String(1024 * 1024) },
        code: "payload_too_large",
      },
      {
        name: "list with limit=0",
        method: "GET",
        path: "/api/locks?limit=0",
        code: "invalid_request",
      },
      {
        name: "list with limit=abc",
        method: "GET",
        path: "/api/locks?limit=abc",
        code: "invalid_request",
      },
      {
        name: "list with limit=1.5",
        method: "GET",
        path: "/api/locks?limit=1.5",
        code: "invalid_request",
      },
      {
        name: "list with limit=100000",
        method: "GET",
        path: "/api/locks?limit=100000",
        code: "invalid_request",
      },
      {
        name: "list with an unknown state",
        method: "GET",
        path: "/api/locks?state=stolen",
        code: "invalid_request",
      },
      {
        name: "list with a 257-character pattern",
        method: "GET",
        path: `/api/locks?match=${"*a".repeat(128)}b`,
        code: "invalid_request",
      },
      {
        name: "list with a forged cursor",
        method: "GET",
        path: "/api/locks?cursor=%21%21%21",
        code: "invalid_request",
      },
      {
        name: "DELETE on the lock list",
        method: "DELETE",
        path: "/api/locks",
        code: "method_not_allowed",
      },
    ],
  },
  {
    route: "/api/locks/[...resource]",
    handlers: lockRoute,
    cases: [
      // issue 11
      {
        name: "read a key over 8 KiB by path",
        method: "GET",
        path: `/api/locks/${overBound}`,
        code: "invalid_request",
      },
      {
        name: "read one with a broken escape",
        method: "GET",
        path: "/api/locks/%zz",
        code: "invalid_request",
      },
      {
        name: "read one 10 KB name",
        method: "GET",
        path: `/api/locks/${big}`,
        code: "invalid_request",
      },
      {
        name: "read one reserved key",
        method: "GET",
        path: "/api/locks/redlock%3Aaudit",
        code: "reserved_resource",
      },
      {
        name: "read one with bad base64",
        method: "GET",
        path: "/api/locks/%21%21?encoding=base64",
        code: "invalid_request",
      },
      {
        name: "read one with an unknown encoding",
        method: "GET",
        path: "/api/locks/abc?encoding=rot13",
        code: "invalid_request",
      },
    ],
  },
  {
    route: "/api/locks/extend",
    handlers: extend,
    cases: [
      {
        name: "extend without value",
        method: "POST",
        path: "/api/locks/extend",
        body: { resources: ["seed"], ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "extend with an empty value",
        method: "POST",
        path: "/api/locks/extend",
        body: { ...held, value: "", ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "extend with a 1000-char value",
        method: "POST",
        path: "/api/locks/extend",
        body: { ...held, value: "v".repeat(1000), ttlMs: 1_000 },
        code: "invalid_request",
      },
      {
        name: "extend with a fractional TTL",
        method: "POST",
        path: "/api/locks/extend",
        body: { ...held, ttlMs: 99.9 },
        code: "invalid_request",
      },
      {
        name: "extend without a credential",
        method: "POST",
        path: "/api/locks/extend",
        body: { ...held, ttlMs: 1_000 },
        token: null,
        code: "unauthorized",
      },
    ],
  },
  {
    route: "/api/locks/release",
    handlers: release,
    cases: [
      {
        name: "release with a numeric value",
        method: "POST",
        path: "/api/locks/release",
        body: { resources: ["seed"], value: 42 },
        code: "invalid_request",
      },
      {
        name: "release with resources as an object",
        method: "POST",
        path: "/api/locks/release",
        body: { resources: { 0: "seed" }, value: "a".repeat(40) },
        code: "invalid_request",
      },
      {
        name: "release from another origin",
        method: "POST",
        path: "/api/locks/release",
        body: held,
        origin: "null",
        code: "cross_origin",
      },
    ],
  },
  {
    route: "/api/locks/force-release",
    handlers: forceRelease,
    cases: [
      // issue 11
      {
        name: "force-release a key over 8 KiB by base64",
        method: "POST",
        path: "/api/locks/force-release",
        body: {
          resourceBase64: Buffer.from(overBound).toString("base64"),
          force: true,
          reason: "too long key",
        },
        code: "invalid_request",
      },
      {
        name: "force-release without a reason",
        method: "POST",
        path: "/api/locks/force-release",
        body: { resource: "seed", expectedValue: "a".repeat(40) },
        code: "invalid_request",
      },
      {
        name: "force-release with a 1-char reason",
        method: "POST",
        path: "/api/locks/force-release",
        body: { ...forced, reason: "x" },
        code: "invalid_request",
      },
      {
        name: "force-release with a blank reason",
        method: "POST",
        path: "/api/locks/force-release",
        body: { ...forced, reason: "     " },
        code: "invalid_request",
      },
      {
        name: "force-release with a 1000-char reason",
        method: "POST",
        path: "/api/locks/force-release",
        body: { ...forced, reason: "r".repeat(1000) },
        code: "invalid_request",
      },
      {
        name: "force-release with neither expectedValue nor force",
        method: "POST",
        path: "/api/locks/force-release",
        body: { resource: "seed", reason: "valid reason" },
        code: "invalid_request",
      },
      {
        name: "force-release with force: false and no value",
        method: "POST",
        path: "/api/locks/force-release",
        body: { resource: "seed", force: false, reason: "valid reason" },
        code: "invalid_request",
      },
      {
        name: "force-release with both expectedValue and force",
        method: "POST",
        path: "/api/locks/force-release",
        body: { ...forced, force: true },
        code: "invalid_request",
      },
      {
        name: "force-release naming resource twice",
        method: "POST",
        path: "/api/locks/force-release",
        body: { ...forced, resourceBase64: "c2VlZA==" },
        code: "invalid_request",
      },
      {
        name: "force-release with bad base64",
        method: "POST",
        path: "/api/locks/force-release",
        body: { resourceBase64: "!!!", force: true, reason: "valid reason" },
        code: "invalid_request",
      },
      {
        name: "force-release a base64 key longer than a resource name may be",
        method: "POST",
        path: "/api/locks/force-release",
        body: {
          resourceBase64: Buffer.alloc(8 * 1024 + 1, 0xff).toString("base64"),
          force: true,
          reason: "valid reason",
        },
        code: "invalid_request",
      },
      {
        name: "force-release a reserved key",
        method: "POST",
        path: "/api/locks/force-release",
        body: { resource: "redlock:audit", force: true, reason: "valid reason" },
        code: "reserved_resource",
      },
      {
        name: "force-release without a credential",
        method: "POST",
        path: "/api/locks/force-release",
        body: forced,
        token: null,
        code: "unauthorized",
      },
    ],
  },
  {
    route: "/api/session",
    handlers: session,
    cases: [
      {
        name: "login as text/plain",
        method: "POST",
        path: "/api/session",
        rawBody: '{"token":"x"}',
        headers: { "content-type": "text/plain" },
        token: null,
        code: "unsupported_media_type",
      },
      {
        name: "login with invalid JSON",
        method: "POST",
        path: "/api/session",
        rawBody: "{token",
        headers: { "content-type": "application/json" },
        token: null,
        code: "invalid_json",
      },
      {
        name: "login without a token",
        method: "POST",
        path: "/api/session",
        body: {},
        token: null,
        code: "invalid_request",
      },
      {
        name: "login from another origin",
        method: "POST",
        path: "/api/session",
        body: { token: "x" },
        token: null,
        origin: "http://evil.test",
        code: "cross_origin",
      },
      {
        name: "login with a wrong token",
        method: "POST",
        path: "/api/session",
        body: { token: "wrong-token-0000000000" },
        token: null,
        code: "unauthorized",
      },
      {
        name: "logout from another origin",
        method: "DELETE",
        path: "/api/session",
        token: null,
        origin: "http://evil.test",
        code: "cross_origin",
      },
    ],
  },
  {
    route: "/api/latency",
    handlers: latency,
    cases: [
      {
        name: "latency with a negative window",
        method: "GET",
        path: "/api/latency?window=-5",
        code: "invalid_request",
      },
      {
        name: "latency with a window in years",
        method: "GET",
        path: "/api/latency?window=1y",
        code: "invalid_request",
      },
      {
        name: "latency with a 48 h window",
        method: "GET",
        path: "/api/latency?window=48h",
        code: "invalid_request",
      },
    ],
  },
  {
    route: "/api/audit",
    handlers: audit,
    cases: [
      {
        name: "audit with limit=0",
        method: "GET",
        path: "/api/audit?limit=0",
        code: "invalid_request",
      },
      {
        name: "audit with limit=99999",
        method: "GET",
        path: "/api/audit?limit=99999",
        code: "invalid_request",
      },
    ],
  },
  {
    route: "/api/events",
    handlers: events,
    cases: [
      {
        name: "events with an unknown kind",
        method: "GET",
        path: "/api/events?kind=stolen",
        code: "invalid_request",
      },
      {
        name: "events with a glob too long",
        method: "GET",
        path: `/api/events?match=${"*".repeat(300)}`,
        code: "invalid_request",
      },
      {
        name: "events with limit=99999",
        method: "GET",
        path: "/api/events?limit=99999",
        code: "invalid_request",
      },
    ],
  },
  {
    route: "/api/events/stream",
    handlers: eventStream,
    cases: [
      {
        name: "event stream with owner not label=value",
        method: "GET",
        path: "/api/events/stream?owner=x",
        code: "invalid_request",
      },
    ],
  },
  {
    route: "/api/health",
    handlers: health,
    cases: [
      { name: "PUT on health", method: "PUT", path: "/api/health", code: "method_not_allowed" },
    ],
  },
  {
    route: "/api/[...path]: no such route",
    handlers: unknownApi,
    cases: [
      // issue 11
      {
        name: "GET an unknown API path",
        method: "GET",
        path: "/api/no-such-route",
        code: "not_found",
      },
      // issue 11
      {
        name: "POST an unknown API path",
        method: "POST",
        path: "/api/locks/seed/extend",
        body: ok,
        code: "not_found",
      },
    ],
  },
];

/** Sends a bad request to its route's handler for its method. */
function send(
  handlers: RouteCases["handlers"],
  { name: _name, code: _code, method, path, ...options }: BadRequest,
): Promise<Response> {
  const handler = handlers[method];
  if (!handler) throw new Error(`no ${method} handler`);
  return handler(buildRequest(path, { ...options, method }));
}

/**
 * Every key of every node with its serialized value (DUMP), so any write shows up. The audit
 * stream only by name: wrong credentials are audited on purpose (rate-limited); every other bad
 * request leaves it as it was, which the entry ids below check.
 */
const BREAK_GLASS_LAST_USE = "redlock:console:break-glass:last-use";

async function keyspace(): Promise<string[][]> {
  return Promise.all(
    nodes.map(async (node) => {
      // Every use of the break-glass admin token (these requests send it) is recorded by design,
      // whatever the request's outcome: it is the credential's trail, not the request's state.
      const keys = (await node.keys("*")).filter((key) => key !== BREAK_GLASS_LAST_USE).sort();
      const dumps = await Promise.all(keys.map((key) => node.dumpBuffer(key)));
      return keys.map((key, index) =>
        key === "redlock:audit" ? key : `${key}=${dumps[index]?.toString("base64")}`,
      );
    }),
  );
}

/** Actions in the audit stream other than the audited wrong credentials and break-glass uses. */
async function auditedActions(): Promise<string[]> {
  const entries = await nodes[0]!.xrange("redlock:audit", "-", "+");
  return entries
    .filter(([, fields]) => fields[fields.indexOf("action") + 1] !== "break-glass")
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

describe("bad requests", () => {
  for (const { route, handlers, cases } of ROUTES) {
    describe(route, () => {
      for (const badRequest of cases) {
        const status = ERROR_STATUS[badRequest.code];
        it(`${badRequest.name} -> ${status} ${badRequest.code}`, async () => {
          const response = await send(handlers, badRequest);
          const body = (await response.json()) as ErrorBody;
          expect(response.status).toBe(status);
          expect(body.error.code).toBe(badRequest.code);
          expect(body.error.message.length).toBeGreaterThan(0);
        });
      }
    });
  }

  it("left every key of every node unchanged", async () => {
    for (const { handlers, cases } of ROUTES) {
      for (const badRequest of cases) {
        const response = await send(handlers, badRequest);
        expect(response.status).toBeLessThan(500);
      }
    }
    expect(await keyspace()).toEqual(baseline);
    expect(await auditedActions()).toHaveLength(1); // the seed entry only
    expect(baseline[0]!.length).toBe(2);
  });
});
