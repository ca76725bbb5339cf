/**
 * People for the identity tests, signed in for real: the test OpenID Provider (support/oidc-provider.ts)
 * knows them, each signs in once through the console's own login and callback routes, and a request
 * `as` a person carries that person's sign-in cookie through the guard's real path. Their grants come
 * from their groups by PEOPLE_RULES, as CONSOLE_RBAC gives them. Bearer tokens (personal and
 * break-glass) take the guard's real path too. The console's routes are served over real HTTP
 * (route-server.ts).
 */
import { randomBytes } from "node:crypto";
import * as audit from "@/app/api/audit/route";
import * as events from "@/app/api/events/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as locks from "@/app/api/locks/route";
import * as session from "@/app/api/session/route";
import * as tokenById from "@/app/api/tokens/[id]/route";
import * as tokens from "@/app/api/tokens/route";
import type { ConsoleConfig } from "@/lib/server/config";
import type { RbacRule } from "@/lib/server/rbac-config";
import { startTestProvider, type TestPerson } from "../support/oidc-provider";
import { startTestConsole, type TestConsole } from "./helpers";
import { serveRoutes, type RouteServer } from "./route-server";
import { signInAs, signInConfig, TEST_CLIENT } from "./sign-in-helpers";

/** CONSOLE_RBAC for these tests: the order is what the grants' `rule` names. */
export const PEOPLE_RULES: RbacRule[] = [
  { group: "payments-oncall", role: "operator", services: ["payments"] },
  { group: "sre", role: "admin" },
  { group: "everyone", role: "viewer" },
];

/** A person of the test provider; `subject` is what the provider says (`sub`: the login). */
export interface TestSignIn extends TestPerson {
  readonly subject: string;
}

export function person(name: string, email: string, groups: string[]): TestSignIn {
  const login = `${name.split(" ")[0]!.toLowerCase()}-${randomBytes(4).toString("hex")}`;
  return { login, password: `${login}-pass`, name, email, groups, subject: login };
}

/** The sign-in cookie of each person, per server. */
const cookies = new WeakMap<RouteServer, Map<string, string>>();

export interface People {
  readonly tc: TestConsole;
  readonly server: RouteServer;
  /** The provider's issuer: what the audit records as the person's. */
  readonly issuer: string;
  close(): Promise<void>;
}

/**
 * The test provider with `people`, a console on `urls` that signs in with it (`overrides` added to
 * its config), and each person signed in once; the routes the tests use, served over HTTP.
 */
export async function startPeople(
  urls: string[],
  people: Record<string, TestSignIn>,
  overrides: Partial<ConsoleConfig> = {},
): Promise<People> {
  const provider = await startTestProvider({
    clients: [TEST_CLIENT],
    people: Object.values(people),
  });
  const tc = startTestConsole(urls, {
    ...signInConfig(provider.issuer, { rbacRules: PEOPLE_RULES }),
    ...overrides,
  });
  const signedIn = new Map<string, string>();
  for (const [key, each] of Object.entries(people)) signedIn.set(key, await signInAs(each));
  const server = await serveRoutes([
    [/^\/api\/tokens\/[^/]+$/, tokenById],
    [/^\/api\/tokens$/, tokens],
    [/^\/api\/session$/, session],
    [/^\/api\/audit$/, audit],
    [/^\/api\/events$/, events],
    [/^\/api\/locks\/force-release$/, forceRelease],
    [/^\/api\/locks$/, locks],
  ]);
  cookies.set(server, signedIn);
  return {
    tc,
    server,
    issuer: provider.issuer,
    close: async () => {
      await server.close();
      await tc.close();
      await provider.stop();
    },
  };
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
  if (options.as) {
    const cookie = cookies.get(server)?.get(options.as);
    if (!cookie) throw new Error(`${options.as} is not signed in on this server`);
    headers.cookie = cookie;
  }
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
