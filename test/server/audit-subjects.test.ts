/**
 * An audit its subjects cannot erase (issue 49): refusals and wrong credentials are summed in their
 * own stream and never evict actions; actions are trimmed by age on the node's clock and by the
 * largest length any replica configured; identical searches share one read, and an anonymous
 * search looks back one page per node. Private masters: each test starts from empty nodes, counts
 * commands (CONFIG RESETSTAT) and sets short caps.
 */
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as audit from "@/app/api/audit/route";
import * as locks from "@/app/api/locks/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as revoke from "@/app/api/locks/revoke/route";
import * as tokenById from "@/app/api/tokens/[id]/route";
import * as nodesRoute from "@/app/api/nodes/route";
import type { AuditResponse, ErrorBody } from "@/lib/api";
import { PEER_ADDRESS_HEADER } from "@/lib/server/auth/client-info";
import type { ConsoleConfig } from "@/lib/server/config";
import { AUDIT_STREAM } from "@/lib/server/audit/audit-trail";
import { toStreamFields } from "@/lib/server/audit/stream-codec";
import { connect, commandCalls, disconnect, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const DAY_MS = 86_400_000;
const masters = usePrivateMasters(5);
let nodes: Redis[];
let tc: TestConsole | undefined;

const open = (overrides: Partial<ConsoleConfig> = {}) => {
  tc = startTestConsole(masters.masters().urls, { auditRefusalFlushMs: 200, ...overrides });
  return tc;
};
const readAudit = async (query: string, token?: string | null) => {
  const response = await call<AuditResponse>(audit.GET, `/api/audit?${query}`, { token });
  expect(response.status).toBe(200);
  return response.body;
};
/** Sum of the refusal log's counts for one action and code. */
const refusedCount = async (action: string, code: string) =>
  ((await readAudit("kind=refusals&limit=1000")).refusals ?? [])
    .filter((refusal) => refusal.action === action && refusal.code === code)
    .reduce((sum, refusal) => sum + refusal.count, 0);

/** A valid stream entry as the console writes it, at `at`, with the stream id `id`. */
const seedEntry = (node: Redis, id: string, resource: string, at = Date.now()) =>
  node.xadd(
    AUDIT_STREAM,
    id,
    ...toStreamFields({
      id: `seed-${resource}`,
      at,
      action: "release",
      actor: "seed",
      clientIp: "127.0.0.1",
      userAgent: "",
      resources: [resource],
      value: null,
      reason: null,
      outcome: "success",
      detail: "seeded",
      followUpOf: null,
      holderDid: null,
      releasedAfterMs: null,
      nodes: [],
      person: null,
      credential: null,
      tokenName: null,
      role: null,
      rule: null,
      incident: null,
    }),
  );

const nodeNowMs = async (node: Redis) => {
  const [seconds, micros] = await node.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
};

beforeAll(() => {
  nodes = connect(masters.masters().urls);
});
beforeEach(async () => {
  await Promise.all(nodes.map((node) => node.flushall()));
});
afterEach(async () => {
  vi.useRealTimers();
  await tc?.close();
  tc = undefined;
});
afterAll(async () => {
  await disconnect(nodes);
});

describe("refusals never evict actions", () => {
  it("keeps a force-release through a flood of refused revokes, and sums the refusals", async () => {
    const { prefix } = open({ auditMaxLen: 100, auditRefusalsMaxLen: 100 });
    const resource = `${prefix}evidence`;
    const value = "a".repeat(40); // no session id: revoke answers 409 no_session
    await Promise.all(nodes.map((node) => node.set(resource, value, "PX", 60_000)));
    const forced = await call<{ auditId: string }>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource, expectedValue: value, noSession: "release-now", reason: "evidence" },
    });
    expect(forced.status).toBe(200);
    await Promise.all(nodes.map((node) => node.set(resource, value, "PX", 60_000)));
    const sent = 300;
    const parallel = 6;
    for (let done = 0; done < sent; done += parallel) {
      const answers = await Promise.all(
        Array.from({ length: parallel }, () =>
          call<ErrorBody>(revoke.POST, "/api/locks/revoke", {
            body: { resource, expectedValue: value, reason: "flood" },
          }),
        ),
      );
      for (const answer of answers) expect(answer.body.error.code).toBe("no_session");
    }
    await expect
      .poll(() => refusedCount("POST /api/locks/revoke", "no_session"), { timeout: 20_000 })
      .toBe(sent);
    const { entries } = await readAudit("limit=1000");
    expect(entries.find((entry) => entry.id === forced.body.auditId)).toMatchObject({
      action: "force-release",
      outcome: "success",
    });
    expect(entries.filter((entry) => entry.action === "revoke")).toEqual([]);
    const refusals = (await readAudit("kind=refusals&limit=1000")).refusals!;
    expect(refusals.length).toBeLessThan(sent / 10); // summed, not one entry each
    expect(refusals[0]).toMatchObject({
      actor: "break-glass (token)",
      resources: [resource],
      status: 409,
    });
    expect(refusals[0]!.firstAt).toBeLessThanOrEqual(refusals[0]!.lastAt);
  });

  it("keeps a force-release through a flood of wrong-value force-releases, each refused 409 value_changed", async () => {
    const { prefix } = open({ auditMaxLen: 100, auditRefusalsMaxLen: 100 });
    const resource = `${prefix}evidence`;
    const value = "a".repeat(40);
    await Promise.all(nodes.map((node) => node.set(resource, value, "PX", 60_000)));
    const forced = await call<{ auditId: string }>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource, expectedValue: value, noSession: "release-now", reason: "evidence" },
    });
    expect(forced.status).toBe(200);
    // Another holder now: every force-release of the old value compares, writes nothing, and is refused.
    const other = "b".repeat(40);
    await Promise.all(nodes.map((node) => node.set(resource, other, "PX", 60_000)));
    const sent = 300;
    const parallel = 6;
    for (let done = 0; done < sent; done += parallel) {
      const answers = await Promise.all(
        Array.from({ length: parallel }, () =>
          call<ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
            body: { resource, expectedValue: value, reason: "flood" },
          }),
        ),
      );
      for (const answer of answers) expect(answer.body.error.code).toBe("value_changed");
    }
    await expect
      .poll(() => refusedCount("POST /api/locks/force-release", "value_changed"), {
        timeout: 20_000,
      })
      .toBe(sent);
    expect(await Promise.all(nodes.map((node) => node.get(resource)))).toEqual(
      Array(5).fill(other),
    );
    const { entries } = await readAudit("limit=1000");
    expect(entries.filter((entry) => entry.action === "force-release")).toMatchObject([
      { id: forced.body.auditId, outcome: "success", reason: "evidence" },
    ]);
  });

  it("keeps an action through a flood of revokes of token ids that do not exist (404)", async () => {
    // Each id is its own route, so its own refusal group: the refusal log is left room for all.
    const { prefix } = open({ auditMaxLen: 100, auditRefusalsMaxLen: 1_000 });
    const acquired = await call(locks.POST, "/api/locks", {
      body: { resources: [`${prefix}kept`], ttlMs: 1_000 },
    });
    expect(acquired.status).toBe(201);
    const sent = 300;
    for (let index = 0; index < sent; index += 1) {
      const id = index.toString(16).padStart(16, "0");
      const answer = await call<ErrorBody>(tokenById.DELETE, `/api/tokens/${id}`, {
        method: "DELETE",
      });
      expect(answer.body.error.code).toBe("not_found");
    }
    await expect
      .poll(
        async () =>
          ((await readAudit("kind=refusals&limit=1000")).refusals ?? [])
            .filter((refusal) => refusal.code === "not_found")
            .reduce((sum, refusal) => sum + refusal.count, 0),
        { timeout: 20_000 },
      )
      .toBe(sent);
    const { entries } = await readAudit("limit=1000");
    expect(entries.filter((entry) => entry.action === "token-revoke")).toEqual([]);
    expect(entries.some((entry) => entry.resources.includes(`${prefix}kept`))).toBe(true);
  });

  it("writes nothing to the actions stream for wrong tokens from many addresses", async () => {
    const { prefix } = open({ auditMaxLen: 100 });
    const acquired = await call(locks.POST, "/api/locks", {
      body: { resources: [`${prefix}kept`], ttlMs: 1_000 },
    });
    expect(acquired.status).toBe(201);
    const clients = 150;
    for (let index = 0; index < clients; index += 1) {
      const answer = await call(nodesRoute.GET, "/api/nodes", {
        token: "wrong-token",
        headers: { [PEER_ADDRESS_HEADER]: `127.0.${Math.floor(index / 250)}.${(index % 250) + 1}` },
      });
      expect(answer.status).toBe(401);
    }
    await expect
      .poll(() => refusedCount("auth-failure", "unauthorized"), { timeout: 20_000 })
      .toBe(clients);
    const actionsOf = async (node: Redis) =>
      (await node.xrange(AUDIT_STREAM, "-", "+")).map(
        ([, fields]) => fields[fields.indexOf("action") + 1],
      );
    for (const node of nodes) expect(await actionsOf(node)).not.toContain("auth-failure");
    const { entries } = await readAudit("limit=1000");
    expect(entries.some((entry) => entry.resources.includes(`${prefix}kept`))).toBe(true);
  });
});

describe("the trail's retention", () => {
  it("trims by age on the node's clock, whatever the console's clock says", async () => {
    const { prefix } = open({ auditRetentionDays: 1 });
    const nowMs = await nodeNowMs(nodes[0]!);
    // Stream ids are node time; the entries' own `at` says "now", so only the id tells their age.
    for (const node of nodes) {
      await seedEntry(node, `${nowMs - 2 * DAY_MS}-1`, "two-days-old");
      await seedEntry(node, `${nowMs - DAY_MS / 2}-1`, "half-a-day-old");
    }
    const acquireOne = (name: string) =>
      call(locks.POST, "/api/locks", { body: { resources: [`${prefix}${name}`], ttlMs: 1_000 } });
    const seeded = async () =>
      (await nodes[2]!.xrange(AUDIT_STREAM, "-", "+")).flatMap(([, fields]) =>
        (JSON.parse(fields[fields.indexOf("resources") + 1]!) as string[]).filter(
          (resource) => !resource.startsWith(prefix),
        ),
      );
    // A console clock ten days slow would keep the two-day-old entry...
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() - 10 * DAY_MS });
    expect((await acquireOne("slow-clock")).status).toBe(201);
    expect(await seeded()).toEqual(["half-a-day-old"]);
    // ...and one ten days fast would drop the half-day-old one.
    vi.setSystemTime(Date.now() + 20 * DAY_MS);
    expect((await acquireOne("fast-clock")).status).toBe(201);
    expect(await seeded()).toEqual(["half-a-day-old"]);
  });

  it("is not shortened by a replica configured with a smaller length", async () => {
    const record = {
      action: "release" as const,
      actor: "test",
      clientIp: "127.0.0.1",
      userAgent: "",
      resources: ["bounded"],
      value: null,
      reason: null,
      outcome: "success" as const,
      detail: "",
    };
    const long = open({ auditMaxLen: 1_000 });
    await long.ctx.audit.append(record);
    await long.close();
    const short = open({ auditMaxLen: 100 });
    for (let index = 0; index < 400; index += 1) await short.ctx.audit.append(record);
    expect(await nodes[3]!.xlen(AUDIT_STREAM)).toBe(401);
    const { stream } = await readAudit("limit=1");
    // 401, and the break-glass entry of this read's own admin token.
    expect(stream).toMatchObject({ length: 402, maxLen: 1_000, fillPercent: 40.2, warning: null });
  });

  it("warns in the audit answer once the trail nears its length cap", async () => {
    const { ctx } = open({ auditMaxLen: 100 });
    const record = {
      action: "release" as const,
      actor: "test",
      clientIp: "127.0.0.1",
      userAgent: "",
      resources: ["filling"],
      value: null,
      reason: null,
      outcome: "success" as const,
      detail: "",
    };
    for (let index = 0; index < 90; index += 1) await ctx.audit.append(record);
    const { stream } = await readAudit("limit=1");
    expect(stream!.fillPercent).toBeGreaterThanOrEqual(80);
    expect(stream!.oldestAt).toEqual(expect.any(Number));
    expect(stream!.warning).toContain("CONSOLE_AUDIT_MAXLEN");
  });
});

describe("audit searches", () => {
  it("cost the masters one read for identical concurrent searches, one page for anonymous ones", async () => {
    for (const node of nodes) {
      const batch = node.pipeline();
      for (let index = 0; index < 1_200; index += 1)
        batch.xadd(AUDIT_STREAM, "*", "id", `filler-${index}`, "action", "release");
      await batch.exec();
    }
    open();
    await Promise.all(nodes.map((node) => node.config("RESETSTAT")));
    const searches = await Promise.all(
      Array.from({ length: 8 }, () => readAudit("person=nobody-matches", null)),
    );
    for (const search of searches) expect(search).toMatchObject({ scanLimitReached: true });
    expect(await Promise.all(nodes.map((node) => commandCalls(node, "xrevrange")))).toEqual(
      Array(5).fill(1),
    );
    // With a credential, the same search looks back 20,000 entries: here the whole stream.
    const signedIn = await readAudit("person=nobody-matches");
    expect(signedIn).toMatchObject({ entries: [], scanLimitReached: false });
  });
});
