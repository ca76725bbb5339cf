/**
 * Every state-changing route over real HTTP, as people through the authenticating proxy: without a
 * credential (401), with too small a role (403 forbidden, the role named), cross-origin (403
 * cross_origin), and with hostile input (400, never 500); in each case nothing on the nodes changed.
 */
import { describe, expect, it } from "vitest";
import type { ErrorBody } from "@/lib/api";
import { useRbacConsole, type PersonName } from "./fixtures/rbac-console";

const rbac = useRbacConsole();

interface RouteCase {
  readonly name: string;
  readonly path: () => string;
  readonly body: () => unknown;
  /** The least role the route's action needs, as the refusal names it. */
  readonly needs: string;
}

/** Each case's lock: held by service payments, so only the refusals under test stand between. */
const held = () => rbac.key("guarded");
let heldValue = "";
const nodeId = () => rbac.tc.ctx.registry.nodes[0]!.id;

const ROUTES: RouteCase[] = [
  {
    name: "acquire",
    path: () => "/api/locks",
    body: () => ({ resources: [rbac.key("new")], ttlMs: 5_000 }),
    needs: "Acquiring in the playground needs operator; you are viewer.",
  },
  {
    name: "extend",
    path: () => "/api/locks/extend",
    body: () => ({ resources: [held()], value: heldValue, ttlMs: 5_000 }),
    needs: "Extending in the playground needs operator; you are viewer.",
  },
  {
    name: "release",
    path: () => "/api/locks/release",
    body: () => ({ resources: [held()], value: heldValue }),
    needs: "Releasing in the playground needs operator; you are viewer.",
  },
  {
    name: "force-release",
    path: () => "/api/locks/force-release",
    body: () => ({ resource: held(), expectedValue: heldValue, reason: "on-call drill" }),
    needs: "Force release needs operator; you are viewer.",
  },
  {
    name: "revoke",
    path: () => "/api/locks/revoke",
    body: () => ({ resource: held(), expectedValue: heldValue, reason: "on-call drill" }),
    needs: "Asking the holder to release needs operator; you are viewer.",
  },
  {
    name: "release a holder session",
    path: () => `/api/sessions/${"a".repeat(32)}/release`,
    body: () => ({ reason: "on-call drill", force: true }),
    needs: "Releasing a holder session needs operator; you are viewer.",
  },
  {
    name: "turn on keyspace events",
    path: () => `/api/nodes/${encodeURIComponent(nodeId())}/keyspace-events`,
    body: () => ({}),
    needs: "Changing a node's settings needs admin; you are viewer.",
  },
];

async function unchanged(): Promise<void> {
  expect(await rbac.valuesOf(held())).toEqual(Array(5).fill(heldValue));
  expect(await rbac.valuesOf(rbac.key("new"))).toEqual(Array(5).fill(null));
}

async function setUp(): Promise<void> {
  if (heldValue) return;
  const holder = await rbac.holder("payments");
  heldValue = holder.value();
  await rbac.setEverywhere(held(), heldValue);
}

const post = (person: PersonName | null, route: RouteCase, options: object = {}) =>
  rbac.as<ErrorBody>(person, route.path(), { body: route.body(), ...options });

describe.each(ROUTES)("$name", (route) => {
  it("answers 401 without a credential", async () => {
    await setUp();
    const answer = await post(null, route);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe("unauthorized");
    await unchanged();
  });

  it("answers 403 to a viewer, naming the role it needs", async () => {
    await setUp();
    const answer = await post("victor", route);
    expect(answer.status).toBe(403);
    expect(answer.body.error).toEqual({ code: "forbidden", message: route.needs });
    await unchanged();
  });

  it("answers 403 to a person whose request comes from another origin", async () => {
    await setUp();
    for (const origin of ["https://evil.example", null]) {
      const answer = await post("sam", route, { origin });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe("cross_origin");
    }
    await unchanged();
  });

  it("answers 4xx to hostile input from an admin, never 500", async () => {
    await setUp();
    const hostile: unknown[] = [
      [],
      "x",
      { preview: "yes", admin: true },
      { resources: ["\u0000".repeat(10)], resource: { $ne: 1 }, reason: 7, ttlMs: -1 },
    ];
    for (const body of hostile) {
      const answer = await rbac.as<ErrorBody>("sam", route.path(), { body });
      expect(answer.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(answer.status, JSON.stringify(body)).toBeLessThan(500);
    }
    await unchanged();
  });
});
