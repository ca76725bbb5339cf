/**
 * People for the identity tests, made in the test process (the sign-in with OpenID Connect is
 * another branch's): a request carrying `x-test-person: <key>` acts as that person, through the
 * guard's `people` hook, while bearer tokens (personal and break-glass) take the guard's real path.
 * The console's routes are then served over real HTTP (route-server.ts).
 */
import { randomBytes } from "node:crypto";
import * as audit from "@/app/api/audit/route";
import * as events from "@/app/api/events/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as locks from "@/app/api/locks/route";
import * as session from "@/app/api/session/route";
import * as tokenById from "@/app/api/tokens/[id]/route";
import * as tokens from "@/app/api/tokens/route";
import { createGuard } from "@/lib/server/auth/guard";
import { personLabel, type Grant, type Principal } from "@/lib/server/auth/identity";
import { createReadLimiter } from "@/lib/server/auth/rate-limit";
import type { TestConsole } from "./helpers";
import { serveRoutes, type RouteServer } from "./route-server";

export const PERSON_HEADER = "x-test-person";
export const ISSUER = "http://127.0.0.1:9/test-issuer";

export function signedIn(
  name: string,
  email: string,
  grants: Grant[],
  subject = `${name.split(" ")[0]!.toLowerCase()}-${randomBytes(4).toString("hex")}`,
): Principal {
  const person = { subject, issuer: ISSUER, name, email, groups: [] };
  return {
    kind: "sign-in",
    carrier: "cookie",
    label: personLabel(person),
    person,
    grants,
    credentialId: randomBytes(8).toString("hex"),
    tokenName: null,
    expiresAt: Date.now() + 3_600_000,
  };
}

/** The guard of `tc` with `people` added; returns the HTTP server of the routes the tests use. */
export async function servePeople(
  tc: TestConsole,
  people: Record<string, Principal>,
): Promise<RouteServer> {
  const { ctx } = tc;
  const guard = createGuard(ctx.config, {
    revocations: ctx.revocations,
    failures: ctx.credentialFailures,
    reads: createReadLimiter({ perSecond: 1_000, burst: 10_000, maxClients: 100 }),
    personalTokens: ctx.personalTokens,
    signIns: ctx.signIns,
    breakGlass: ctx.breakGlass,
    people: async (request) => people[request.headers.get(PERSON_HEADER) ?? ""] ?? null,
  });
  Object.assign(ctx, { guard });
  return serveRoutes([
    [/^\/api\/tokens\/[^/]+$/, tokenById],
    [/^\/api\/tokens$/, tokens],
    [/^\/api\/session$/, session],
    [/^\/api\/audit$/, audit],
    [/^\/api\/events$/, events],
    [/^\/api\/locks\/force-release$/, forceRelease],
    [/^\/api\/locks$/, locks],
  ]);
}

export interface Sent {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- each test reads its own shape
  readonly text: string;
}

/** One HTTP request: `as` a person (with a same-origin Origin) or a `bearer`, or neither. */
export async function send(
  server: RouteServer,
  method: string,
  path: string,
  options: {
    as?: string;
    bearer?: string;
    body?: unknown;
    origin?: string | null;
    raw?: string;
  } = {},
): Promise<Sent> {
  const headers: Record<string, string> = {};
  if (options.as) headers[PERSON_HEADER] = options.as;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  const origin = options.origin === undefined ? (options.as ? server.base : null) : options.origin;
  if (origin) headers.origin = origin;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${server.base}${path}`, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, body: json, text };
}
