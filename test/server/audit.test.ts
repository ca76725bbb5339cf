/**
 * The audit trail lives in Redis, not in the console: an entry written by one console process is
 * read back by another after the first exited, merged across nodes and de-duplicated by event id,
 * and survives the loss of a node's data. Private masters, since a node is wiped.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as audit from "@/app/api/audit/route";
import type { AuditEntry, AuditResponse } from "@/lib/api";
import { AUDIT_STREAM } from "@/lib/server/audit/audit-trail";
import { retentionKeyOf } from "@/lib/server/audit/stream-append";
import { decodeValue } from "@redlock-console/redlock";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { call, startTestConsole } from "./helpers";

const run = promisify(execFile);
const masters = usePrivateMasters(5);
let nodes: Redis[];
const resource = `audited-${process.pid}`;

async function readAudit(): Promise<AuditEntry[]> {
  const tc = startTestConsole(masters.masters().urls);
  try {
    const response = await call<AuditResponse>(audit.GET, "/api/audit?limit=100");
    expect(response.status).toBe(200);
    return response.body.entries;
  } finally {
    await tc.close();
  }
}

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  // A whole console process: starts, acquires through the audited route handler, exits.
  const { stdout } = await run("npx", [
    "tsx",
    "--conditions=react-server",
    "test/server/fixtures/audited-acquire.ts",
    resource,
    ...masters.masters().urls,
  ]);
  expect(stdout.trim()).toBe("201");
}, 60_000);

afterAll(async () => {
  await disconnect(nodes);
});

describe("the audit trail", () => {
  it("is read back by a new console after the writing process exited", async () => {
    const entries = (await readAudit()).filter((entry) => entry.resources.includes(resource));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: "acquire",
      outcome: "success",
      userAgent: "audit-fixture",
    });
    // The console locks with owner labels, so the value carries them (lib/redlock/value.ts).
    expect(decodeValue(entries[0]!.value ?? "")?.owner.labels).toMatchObject({
      service: "redlock-console",
    });
    expect(entries[0]!.nodes).toEqual(["node-1", "node-2", "node-3", "node-4", "node-5"]);
  });

  it("is one stream entry per node, merged into one entry by event id", async () => {
    // Reading the audit with the break-glass token is itself audited (once per client per 10
    // minutes, action "break-glass"): those entries aside, the acquisition is one entry per node.
    const lengths = await Promise.all(
      nodes.map(async (node) => {
        const entries = await node.xrange(AUDIT_STREAM, "-", "+");
        const actionOf = (fields: string[]) => fields[fields.indexOf("action") + 1];
        return entries.filter(([, fields]) => actionOf(fields) !== "break-glass").length;
      }),
    );
    expect(lengths).toEqual([1, 1, 1, 1, 1]);
  });

  it("survives a node that restarts empty, and skips foreign or corrupt stream entries", async () => {
    await masters.masters().restartEmpty(0);
    await nodes[1]!.xadd(AUDIT_STREAM, "*", "id", "not-an-entry");
    const entries = (await readAudit()).filter((entry) => entry.resources.includes(resource));
    expect(entries).toHaveLength(1);
    expect(entries[0]!.nodes).toEqual(["node-2", "node-3", "node-4", "node-5"]);
  });

  it("keeps each node's stream bounded (XADD MAXLEN ~)", async () => {
    // The consoles above agreed on the default length; an admin lowers it by deleting the rule.
    await Promise.all(nodes.map((node) => node.del(retentionKeyOf(AUDIT_STREAM))));
    const tc = startTestConsole(masters.masters().urls, { auditMaxLen: 100 });
    try {
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
      for (let index = 0; index < 400; index += 1) await tc.ctx.audit.append(record);
    } finally {
      await tc.close();
    }
    const length = await nodes[2]!.xlen(AUDIT_STREAM);
    expect(length).toBeLessThan(400);
    expect(length).toBeGreaterThanOrEqual(100);
  });
});
