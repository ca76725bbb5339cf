/**
 * Turning keyspace events on, on real masters (issue 33 part 2, issue 32 row 15): the node card's
 * admin action (`POST /api/nodes/{id}/keyspace-events`) sets only the missing flags and the node
 * leaves polling mode; refused by an ACL, it answers the exact command to run instead. With
 * CONSOLE_ENABLE_KEYSPACE_EVENTS and an ACL user that may not CONFIG SET, the console says so once
 * with the fix and backs off instead of retrying every pass; CONSOLE_RESTORE_KEYSPACE_EVENTS puts the
 * flags back on close (without it they stay, as the docs say).
 */
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as keyspaceEvents from "@/app/api/nodes/[id]/keyspace-events/route";
import type { KeyspaceEventsResponse } from "@/lib/api";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const { masters } = usePrivateMasters(1);
let admin: Redis;
let tc: TestConsole | undefined;
const PASSWORD = "no-config-set-0123456789";

const flags = async () =>
  ((await admin.config("GET", "notify-keyspace-events")) as string[])[1] ?? "";
/** The URL of the master as the ACL user `console`, who may run everything but CONFIG SET. */
const restrictedUrl = () => masters().urls[0]!.replace("redis://", `redis://console:${PASSWORD}@`);
/** CONFIG SET calls the node refused (ACL), from its own commandstats. */
async function refusedConfigSets(): Promise<number> {
  const info = await admin.info("commandstats");
  return Number(/cmdstat_config\|set:.*rejected_calls=(\d+)/.exec(info)?.[1] ?? 0);
}
const turnOn = (nodeId: string, options: Parameters<typeof call>[2] = { body: {} }) =>
  call<KeyspaceEventsResponse & { error: { code: string } }>(
    keyspaceEvents.POST,
    `/api/nodes/${nodeId}/keyspace-events`,
    { method: "POST", ...options },
  );

beforeAll(async () => {
  [admin] = connect(masters().urls) as [Redis];
  await admin.acl("SETUSER", "console", "on", `>${PASSWORD}`, "~*", "&*", "+@all", "-config|set");
});

afterEach(async () => {
  await tc?.close();
  tc = undefined;
  await admin.config("SET", "notify-keyspace-events", "");
  await admin.config("RESETSTAT");
});

afterAll(async () => {
  if (admin) await disconnect([admin]);
});

describe("POST /api/nodes/{id}/keyspace-events", () => {
  it("refuses without the admin credential (401), from another origin (403) and hostile input (400, 404)", async () => {
    await admin.config("SET", "notify-keyspace-events", "");
    tc = startTestConsole(masters().urls);
    expect((await turnOn("node-1", { body: {}, token: null })).status).toBe(401);
    const crossOrigin = await turnOn("node-1", { body: {}, origin: "https://evil.example" });
    expect([crossOrigin.status, crossOrigin.body.error.code]).toEqual([403, "cross_origin"]);
    expect((await turnOn("node-1", { body: { flags: "KEA" } })).status).toBe(400);
    expect(
      (await turnOn("node-1", { rawBody: "[", headers: { "content-type": "application/json" } }))
        .status,
    ).toBe(400);
    expect((await turnOn("no%ZZde", { body: {} })).status).toBe(400);
    expect((await turnOn("node%2F..%2F1", { body: {} })).status).toBe(400);
    expect((await turnOn("node-9", { body: {} })).status).toBe(404);
    expect(await flags()).toBe("");
  });

  it("sets only the missing flags, audited, and the node leaves polling mode", async () => {
    await admin.config("SET", "notify-keyspace-events", "Ex");
    tc = startTestConsole(masters().urls);
    await tc.sync();
    expect(tc.ctx.index.nodeStatus(0).mode).toBe("polling");
    const response = await turnOn("node-1");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ outcome: "enabled", from: "xE", command: null });
    const after = await flags();
    for (const flag of "Kg$hzxeE") expect(after).toContain(flag); // E kept: only flags added
    const console = tc;
    await vi.waitFor(() => expect(console.ctx.index.nodeStatus(0).mode).toBe("watching"), {
      timeout: 10_000,
    });
    const [entry] = (await tc.ctx.audit.read(10)).entries;
    expect(entry).toMatchObject({
      action: "keyspace-events",
      outcome: "success",
      actor: "break-glass (token)",
    });
    // Watched: a new lock shows by its notification.
    const resource = `${tc.prefix}after`;
    await admin.set(resource, "7".repeat(40), "PX", 30_000);
    await vi.waitFor(() => expect(console.ctx.index.row(resource, Date.now())?.state).toBe("held"));
  });

  it("previews the exact CONFIG SET it would run (only the missing flags) and changes nothing", async () => {
    await admin.config("SET", "notify-keyspace-events", "Ex");
    tc = startTestConsole(masters().urls);
    const newestAudit = async () => (await tc!.ctx.audit.read(1)).entries[0]?.id ?? null;
    const auditedBefore = await newestAudit();
    expect((await turnOn("node-1", { body: { preview: true }, token: null })).status).toBe(401);
    const response = await turnOn("node-1", { body: { preview: true } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      outcome: "preview",
      from: "xE",
      to: "xEKg$hze",
      command: 'CONFIG SET notify-keyspace-events "xEKg$hze"',
    });
    expect(await flags()).toBe("xE");
    expect(await newestAudit()).toBe(auditedBefore); // nothing done, nothing audited
    await admin.config("SET", "notify-keyspace-events", "AKE");
    expect((await turnOn("node-1", { body: { preview: true } })).body).toMatchObject({
      outcome: "already",
      command: null,
    });
  });

  it("answers the exact command to run when the node refuses CONFIG SET (ACL)", async () => {
    tc = startTestConsole([restrictedUrl()]);
    await tc.sync();
    const response = await turnOn("node-1");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      outcome: "refused",
      command: 'CONFIG SET notify-keyspace-events "Kg$hzxe"',
    });
    expect(response.body.error).toMatch(/NOPERM/);
    expect(tc.ctx.index.nodeStatus(0).mode).toBe("polling");
    const [entry] = (await tc.ctx.audit.read(10)).entries;
    expect(entry).toMatchObject({ action: "keyspace-events", outcome: "failure" });
  });
});

describe("CONSOLE_ENABLE_KEYSPACE_EVENTS on a node that refuses CONFIG SET", () => {
  it("says so once, with the command to run, and does not retry every pass", async () => {
    tc = startTestConsole([restrictedUrl()], { enableKeyspaceEvents: true });
    await tc.sync();
    await sleep(4_000); // four polling passes, each of which used to try CONFIG SET again
    const status = tc.ctx.index.nodeStatus(0);
    expect(status.mode).toBe("polling");
    expect(status.reason).toMatch(
      /CONFIG SET was refused \(.*NOPERM.*\): polling\. Run CONFIG SET notify-keyspace-events "Kg\$hzxe" on the node/,
    );
    expect(status.reason).toMatch(/tries again in 1 min/);
    expect(await refusedConfigSets()).toBe(1);
  }, 20_000);
});

describe("CONSOLE_RESTORE_KEYSPACE_EVENTS", () => {
  it("puts back the flags the console changed when it closes; without it they stay", async () => {
    tc = startTestConsole(masters().urls, {
      enableKeyspaceEvents: true,
      restoreKeyspaceEvents: true,
    });
    await tc.sync();
    expect(await flags()).not.toBe("");
    await tc.close();
    tc = undefined;
    expect(await flags()).toBe("");
    tc = startTestConsole(masters().urls, { enableKeyspaceEvents: true });
    await tc.sync();
    await tc.close();
    tc = undefined;
    expect(await flags()).not.toBe("");
  });
});
