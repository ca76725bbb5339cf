/**
 * The audit entry's follow-up fields through a real Redis stream: written and read back as fields,
 * and an entry written before they existed (no such fields) still reads, with them null.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "@/lib/api";
import { fromStreamFields, toStreamFields } from "@/lib/server/audit/stream-codec";
import { connect, disconnect, sharedUrls } from "../masters";

const stream = `audit-codec-${process.pid}`;
let node: Redis;

const base: AuditEntry = {
  id: "0b0e6d4e-1b7c-4a57-9a43-0c8d3a1f2e11",
  at: 1_790_000_000_000,
  action: "revoke",
  actor: "token",
  clientIp: "127.0.0.1",
  userAgent: "test",
  resources: ["orders:42"],
  value: "v",
  reason: "rolling restart",
  outcome: "success",
  detail: "follow-up of a1: released by the holder after 812 ms",
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
};

/** XADD the fields, XRANGE them back, decode. */
async function roundTrip(fields: string[]): Promise<AuditEntry | null> {
  const id = await node.xadd(stream, "*", ...fields);
  const [[, read]] = (await node.xrange(stream, id!, id!)) as [[string, string[]]];
  return fromStreamFields(read);
}

beforeAll(() => {
  node = connect(sharedUrls().slice(0, 1))[0]!;
});
afterAll(async () => {
  await node.del(stream);
  await disconnect([node]);
});

describe("audit stream codec: follow-up fields", () => {
  it.each<[string, Partial<AuditEntry>]>([
    ["a released holder", { followUpOf: "a1", holderDid: "released", releasedAfterMs: 812 }],
    ["a holder that did not release", { followUpOf: "a1", holderDid: "did-not-release" }],
    ["a lock gone unrecorded", { followUpOf: "a1", holderDid: "no-record" }],
    ["a force-release follow-up (no holder fields)", { followUpOf: "a1" }],
    ["an entry that follows nothing", {}],
    [
      "a person's token with an incident link",
      {
        actor: "Alice Oncall <alice@example.com> via token ci-unlock",
        person: {
          subject: "alice",
          issuer: "https://id.example.com",
          name: "Alice Oncall",
          email: "alice@example.com",
        },
        credential: "personal-token",
        tokenName: "ci-unlock",
        role: "operator",
        rule: "token ci-unlock, within CONSOLE_RBAC[0] (group payments-oncall)",
        incident: "https://incidents.example.com/INC-1",
      },
    ],
    [
      "a person without a name or email",
      { person: { subject: "s", issuer: "proxy", name: null, email: null }, credential: "proxy" },
    ],
  ])("round-trips %s", async (_name, fields) => {
    const entry = { ...base, ...fields };
    expect(await roundTrip(toStreamFields(entry))).toEqual(entry);
  });

  it("writes no follow-up fields for an entry that follows nothing", () => {
    const fields = toStreamFields(base);
    expect(fields.filter((_, index) => index % 2 === 0)).not.toContain("followUpOf");
  });

  it("reads an entry written before the fields existed, with them null", async () => {
    // The field list as the codec wrote it before followUpOf/holderDid/releasedAfterMs.
    const old = [
      ...["id", base.id, "at", String(base.at), "action", "revoke", "actor", "token"],
      ...["clientIp", "127.0.0.1", "userAgent", "test", "resources", '["orders:42"]'],
      ...["value", "v", "reason", "rolling restart", "outcome", "success", "detail", base.detail],
    ];
    expect(await roundTrip(old)).toEqual(base);
  });

  it("skips an entry whose holderDid is not one it knows", async () => {
    const fields = [...toStreamFields(base), "holderDid", "shrugged"];
    expect(await roundTrip(fields)).toBeNull();
  });
});
