/**
 * Issue 42 item 4: the audit names the person. Over real HTTP on real masters: a force-release
 * with Alice's personal token reaches the holder, the audit and the tombstone as "Alice Oncall
 * <alice@example.com> via token ci-unlock", with the grant that allowed it and the incident link;
 * the audit is filtered by person, resource and time, and each entry has a link of its own.
 */
import type { Redis } from "ioredis";
import Redlock, { decodeTombstone, type RedlockAbortSignal } from "@redlock-console/redlock";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuditEntry } from "@/lib/api";
import { ADMIN_TOKEN, type TestConsole } from "./helpers";
import { connect, disconnect, sharedUrls } from "../masters";
import { person, send, startPeople, type People } from "./people";
import type { RouteServer } from "./route-server";

// An address of this file's own: other files on the suite's shared masters audit their own Alice
// (the test provider's alice@example.com), and the audit's person filter matches by email.
const ALICE_EMAIL = `alice-${process.pid}@example.com`;
const alice = person("Alice Oncall", ALICE_EMAIL, ["payments-oncall"]);
const ALICE_VIA_TOKEN = `Alice Oncall <${ALICE_EMAIL}> via token ci-unlock`;
const INCIDENT = "https://incidents.example.com/INC-4242";

let tc: TestConsole;
let server: RouteServer;
let nodes: Redis[];
let holder: Redlock;
let secret: string;

let people: People;

beforeAll(async () => {
  people = await startPeople(sharedUrls(), { alice });
  ({ tc, server } = people);
  nodes = connect(sharedUrls());
  holder = new Redlock(nodes, { owner: { service: "payments" } });
  await tc.historyWhole();
  const created = await send(server, "POST", "/api/tokens", {
    as: "alice",
    body: {
      name: "ci-unlock",
      grants: [{ role: "operator", services: ["payments"] }],
      expiresInHours: 1,
    },
  });
  secret = created.body.secret;
});
afterAll(async () => {
  await holder.quit();
  await people.close();
  await disconnect(nodes);
});

/**
 * A payments routine holding `resource` with using(): `aborted` resolves with what aborted its
 * signal; the routine settles (and the tombstone goes) only once the test calls `letGo`.
 */
function holding(resource: string) {
  let held!: () => void;
  let letGo!: () => void;
  let heard!: (error: unknown) => void;
  const acquired = new Promise<void>((resolve) => (held = resolve));
  const settled = new Promise<void>((resolve) => (letGo = resolve));
  const aborted = new Promise<unknown>((resolve) => (heard = resolve));
  const done = holder
    .using([resource], 10_000, async (signal: RedlockAbortSignal) => {
      held();
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      heard(signal.error);
      await settled;
    })
    .catch(() => undefined);
  return { acquired, aborted, letGo, done };
}

const auditOf = async (query: string): Promise<AuditEntry[]> => {
  const read = await send(server, "GET", `/api/audit?${query}`, { bearer: ADMIN_TOKEN });
  expect(read.status).toBe(200);
  return read.body.entries;
};

describe("a force-release with a person's token", () => {
  it("names the person everywhere: the holder's error, the tombstone, and the audit entry with its grant and incident", async () => {
    const resource = `${tc.prefix}payments:settle`;
    const routine = holding(resource);
    await routine.acquired;
    const value = (await nodes[0]!.get(resource))!;
    const startedAt = Date.now();
    const forced = await send(server, "POST", "/api/locks/force-release", {
      bearer: secret,
      body: { resource, expectedValue: value, reason: "stuck settlement", incident: INCIDENT },
    });
    expect(forced.status).toBe(200);

    const error = (await routine.aborted) as { name: string; by: string; message: string };
    expect(error.name).toBe("LockForceReleasedError");
    expect(error.by).toBe(ALICE_VIA_TOKEN);
    expect(error.message).toContain(`by ${ALICE_VIA_TOKEN}`);
    // The reservation any redis-cli user sees says who, until the routine settles.
    const values = await Promise.all(nodes.map((node) => node.get(resource)));
    const tombstones = values.map((each) => (each === null ? null : decodeTombstone(each)));
    expect(tombstones.filter((each) => each?.by === ALICE_VIA_TOKEN).length).toBeGreaterThanOrEqual(
      3,
    );
    routine.letGo();
    await routine.done;
    // The lock's timeline (and the Events page, which reads it) says who as well.
    await vi.waitFor(
      async () => {
        const read = await send(
          server,
          "GET",
          `/api/events?resource=${encodeURIComponent(resource)}`,
          {
            bearer: ADMIN_TOKEN,
          },
        );
        const forcedBy = read.body.transitions
          .filter((transition: { kind: string }) => transition.kind === "force-released")
          .map((transition: { by: string }) => transition.by);
        expect(forcedBy).toEqual([ALICE_VIA_TOKEN]);
      },
      { timeout: 15_000, interval: 100 },
    );

    const [entry] = await auditOf(`resource=${encodeURIComponent(resource)}`);
    expect(entry).toMatchObject({
      action: "force-release",
      actor: ALICE_VIA_TOKEN,
      person: {
        subject: alice.subject,
        issuer: people.issuer,
        name: "Alice Oncall",
        email: ALICE_EMAIL,
      },
      credential: "personal-token",
      tokenName: "ci-unlock",
      role: "operator",
      rule: "token ci-unlock, within CONSOLE_RBAC[0] (group payments-oncall)",
      reason: "stuck settlement",
      incident: INCIDENT,
    });

    // Its own link (/audit?id=…) reads it back alone; the filters find it and only what matches.
    expect((await auditOf(`id=${entry!.id}`)).map((each) => each.id)).toEqual([entry!.id]);
    const byPerson = await auditOf(`person=${encodeURIComponent(ALICE_EMAIL)}&limit=1000`);
    expect(byPerson.map((each) => each.id)).toContain(entry!.id);
    expect(byPerson.every((each) => each.actor.includes("Alice Oncall"))).toBe(true);
    expect(
      await auditOf(`person=${alice.subject}&resource=${encodeURIComponent(resource)}`),
    ).toHaveLength(1);
    expect(
      await auditOf(`resource=${encodeURIComponent(resource)}&since=${Date.now() + 1}`),
    ).toHaveLength(0);
    expect(
      await auditOf(`resource=${encodeURIComponent(resource)}&until=${startedAt - 1}`),
    ).toHaveLength(0);
    expect(
      await auditOf(
        `resource=${encodeURIComponent(resource)}&since=${startedAt}&until=${Date.now()}`,
      ),
    ).toHaveLength(1);
    expect(await auditOf("person=nobody-at-all@example.com")).toHaveLength(0);
  });

  it("records who created the token: the signed-in person, not a token", async () => {
    const [created] = await auditOf(`person=${alice.subject}&limit=1000`).then((entries) =>
      entries.filter((each) => each.action === "token-create"),
    );
    expect(created).toMatchObject({
      actor: `Alice Oncall <${ALICE_EMAIL}>`,
      credential: "sign-in",
      tokenName: null,
      outcome: "success",
    });
    expect(created!.detail).toContain("token ci-unlock");
    expect(created!.detail).not.toContain(secret.slice(4));
  });
});

describe("break-glass", () => {
  it('reads "break-glass" in the audit, with no person and the break-glass grant', async () => {
    const resource = `${tc.prefix}glass`;
    const forced = await send(server, "POST", "/api/locks/force-release", {
      bearer: ADMIN_TOKEN,
      body: { resource, force: true, reason: "provider down" },
    });
    expect(forced.status).toBe(200);
    const [entry] = await auditOf(`resource=${encodeURIComponent(resource)}`);
    expect(entry).toMatchObject({
      actor: "break-glass (token)",
      person: null,
      credential: "break-glass",
      tokenName: null,
      role: "admin",
      rule: "break-glass (CONSOLE_ADMIN_TOKEN)",
      incident: null,
    });
  });
});

describe("the incident link and the audit query refuse hostile input", () => {
  it.each([
    ["a javascript: link", "javascript:alert(1)"],
    ["an ftp link", "ftp://files.example.com/x"],
    ["not a URL", "INC-4242"],
    ["a link too long", `https://example.com/${"a".repeat(2_100)}`],
    ["a number", 42],
  ])("refuses %s (400), and audits nothing", async (_name, incident) => {
    const resource = `${tc.prefix}hostile-incident`;
    const refused = await send(server, "POST", "/api/locks/force-release", {
      bearer: secret,
      body: { resource, force: true, reason: "hostile incident", incident },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("incident");
    expect(await auditOf(`resource=${encodeURIComponent(resource)}`)).toHaveLength(0);
  });

  it.each([
    "since=yesterday",
    "until=-5",
    "limit=0",
    "id=..%2F..%2Fetc",
    `person=${"p".repeat(300)}`,
    "since=1e400",
  ])("refuses the query %s (400)", async (query) => {
    const read = await send(server, "GET", `/api/audit?${query}`, { bearer: ADMIN_TOKEN });
    expect(read.status).toBe(400);
    expect(read.body.error.code).toBe("invalid_request");
  });
});
