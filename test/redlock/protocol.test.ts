/**
 * The wire protocol (lib/redlock/protocol.ts) against the console's real readers and writers, one
 * contract per format: what the library encodes the console decodes, and back; and an independent
 * encoder per format, a template written from docs/holder-sessions.md (not the code under test),
 * whose text both sides must decode alike. Hostile input decodes to nothing, never throws. The
 * heartbeat, the waiter entry and the notice also cross real masters.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import {
  holderSessionIdSchema,
  LABELS_MAX,
  RESERVED_PREFIX as API_RESERVED_PREFIX,
} from "@/lib/api";
import { encodeRevokeMarker as consoleEncodeRevokeMarker } from "@/lib/server/actions/revoke";
import { probeWaiters } from "@/lib/server/contention/probe-waiters";
import { stringLockFormat } from "@/lib/server/locks/read/lock-format";
import {
  ownerOfValue,
  parseWaiterMember,
  sessionOfValue,
  sessionOfWaiterMember,
} from "@/lib/server/locks/read/ownership";
import * as consoleTombstone from "@/lib/server/locks/read/tombstone";
import { parseWaiterRef } from "@/lib/server/locks/read/waiter-list";
import type { ConsoleNode } from "@/lib/server/node-registry";
import { publishNotice } from "@/lib/server/sessions/notice";
import { parseHeartbeat, SESSION_ID } from "@/lib/server/sessions/session-keys";
import Redlock, { noticeChannel, sessionKey, validityMs } from "@redlock-console/redlock";
import * as protocol from "@redlock-console/redlock/protocol";
import { connect, sharedUrls, sleep } from "../masters";

const token = "0123456789abcdef0123456789abcdef01234567";
const session = "fedcba9876543210fedcba9876543210";
const labels = { host: "web-1", pid: "42", service: "billing" };
const labelsJson = JSON.stringify(labels);
const at = 1_700_000_000_000;

/** Text that is no format at all, or one's shape gone wrong: every decoder returns nothing for it. */
const garbage = [
  "",
  "null",
  "[]",
  '"text"',
  "{",
  "{}",
  "\u0000\uffff",
  "rl1:",
  `rl1:${token}`,
  `rl1:${token}:{`,
  `rl1:${token.toUpperCase()}:{"acquiredAt":1,"ttlMs":1,"labels":{}}`,
  `rl2:${token}:{"acquiredAt":1,"ttlMs":1,"labels":{}}`,
  `rlx:${token}:`,
  `rlx:${token}:{"auditId":`,
  `rlx:${token.slice(1)}:{"auditId":"a","at":1}`,
  `rlX:${token}:{"auditId":"a","at":1}`,
];

describe("the protocol's shared names", () => {
  it("is browser-safe: the module imports nothing at run time and names no Node API", () => {
    const file = path.resolve(import.meta.dirname, "../../lib/redlock/protocol.ts");
    const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
    expect(code.match(/^import (?!type ).*$/gm) ?? []).toEqual([]);
    expect(code.match(/\bBuffer\b|\bprocess\.|\brequire\(|["']node:/g) ?? []).toEqual([]);
  });

  it("has one reserved prefix, one token and one session-id pattern, used by lib/api and the console", () => {
    expect(API_RESERVED_PREFIX).toBe(protocol.RESERVED_PREFIX);
    expect(protocol.RESERVED_PREFIX).toBe("redlock:");
    expect(SESSION_ID).toBe(protocol.SESSION_ID_PATTERN);
    expect(holderSessionIdSchema.safeParse(session).success).toBe(true);
    expect(holderSessionIdSchema.safeParse(session.toUpperCase()).success).toBe(false);
    expect(protocol.TOKEN_PATTERN.test(randomBytes(20).toString("hex"))).toBe(true);
    expect(protocol.TOKEN_PATTERN.test(token.slice(1))).toBe(false);
  });

  it("drift is driftFactor × TTL, rounded, plus 2 ms, and validity subtracts exactly that", () => {
    expect(protocol.driftMs(10_000, 0.01)).toBe(102);
    expect(protocol.driftMs(150, 0.01)).toBe(4); // 1.5 rounds up
    expect(protocol.driftMs(10_000, 0)).toBe(2);
    expect(validityMs(10_000, 30, 0.01)).toBe(10_000 - 30 - protocol.driftMs(10_000, 0.01));
  });

  it("labels are objects of strings only", () => {
    expect(protocol.isLabels({ a: "b" })).toBe(true);
    for (const bad of [null, [], "a", { a: 1 }, { a: { b: "c" } }])
      expect(protocol.isLabels(bad)).toBe(false);
  });
});

describe("the lock value", () => {
  const encoded = protocol.encodeValue(token, labelsJson, at, 30_000, session);
  // docs/holder-sessions.md: rl1:<token>:{"acquiredAt":…,"ttlMs":…,"labels":{…},"session":"<id>"}
  const oracle = `rl1:${token}:{"acquiredAt":${at},"ttlMs":30000,"labels":{"host":"web-1","pid":"42","service":"billing"},"session":"${session}"}`;

  it("library encoder → the console's readers", () => {
    expect(stringLockFormat(encoded, 30_000)).toBe("string");
    expect(stringLockFormat(encoded, -1)).toBe("string");
    expect(sessionOfValue(encoded)).toBe(session);
    expect(ownerOfValue(encoded)).toMatchObject({ labels, acquiredAt: at, ttlMs: 30_000 });
    expect(protocol.acquiredAtOfValue(encoded)).toBe(at);
  });

  it("the contract's text is what the library writes, and both sides read it alike", () => {
    expect(encoded).toBe(oracle);
    expect(protocol.decodeValue(oracle)).toEqual({
      token,
      owner: { labels, acquiredAt: at, ttlMs: 30_000, session },
      session,
    });
    expect(sessionOfValue(oracle)).toBe(protocol.decodeValue(oracle)!.session);
    // Fields in another order (another writer's JSON) still read, on both sides.
    const reordered = `rl1:${token}:{"labels":{},"session":"${session}","ttlMs":5,"acquiredAt":${at}}`;
    expect(protocol.acquiredAtOfValue(reordered)).toBe(at);
    expect(sessionOfValue(reordered)).toBe(session);
  });

  it("owner: false is the bare token; a value without a session still decodes, without one", () => {
    expect(protocol.encodeValue(token, undefined, at, 30_000, session)).toBe(token);
    const old = `rl1:${token}:{"acquiredAt":${at},"ttlMs":1000,"labels":{}}`;
    expect(protocol.decodeValue(old)).toEqual({
      token,
      owner: { labels: {}, acquiredAt: at, ttlMs: 1000 },
    });
    expect(sessionOfValue(old)).toBeNull();
    const badSession = `rl1:${token}:{"acquiredAt":${at},"ttlMs":1000,"labels":{},"session":"XYZ"}`;
    expect(protocol.decodeValue(badSession)?.session).toBeUndefined();
    expect(sessionOfValue(badSession)).toBeNull();
  });

  it("hostile values decode to nothing on both sides, huge labels included, and never throw", () => {
    const nested = `rl1:${token}:{"acquiredAt":1,"ttlMs":1,"labels":{"a":${"[".repeat(50_000)}${"]".repeat(50_000)}}}`;
    const numeric = `rl1:${token}:{"acquiredAt":1,"ttlMs":1,"labels":{"a":1}}`;
    for (const value of [...garbage, nested, numeric]) {
      expect(protocol.decodeValue(value)).toBeUndefined();
      expect(ownerOfValue(value)).toBeNull();
      expect(sessionOfValue(value)).toBeNull();
    }
    // Many string labels are a value of the format; the console bounds what it keeps and serves.
    const many = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, index) => [`l${index}`, "x".repeat(100)]),
    );
    const huge = protocol.encodeValue(token, JSON.stringify(many), at, 1000);
    expect(Object.keys(protocol.decodeValue(huge)!.owner.labels)).toHaveLength(10_000);
    expect(Object.keys(ownerOfValue(huge)!.labels)).toHaveLength(LABELS_MAX);
  });
});

describe("the tombstone", () => {
  const replaced = protocol.encodeValue(token, labelsJson, at, 30_000, session);
  const fields = { auditId: randomUUID(), by: "oncall@example.com", reason: "stuck", at, session };
  // docs/holder-sessions.md: rlx:<40-hex token>:{"auditId":"…","by":"…","reason":"…","at":<ms>,"session":"<id>"}
  const oracle = `rlx:${token}:{"auditId":"${fields.auditId}","by":"oncall@example.com","reason":"stuck","at":${at},"session":"${session}"}`;

  it("console encoder → the library's decoder, under the prefix the holder's ack deletes", () => {
    const written = consoleTombstone.encodeTombstone(replaced, fields);
    expect(written.startsWith(protocol.tombstonePrefix(replaced))).toBe(true);
    expect(protocol.decodeTombstone(written)).toEqual({ token, ...fields });
  });

  it("library encoder → the console's readers", () => {
    const written = protocol.encodeTombstone(protocol.tokenOf(replaced), fields);
    expect(written).toBe(consoleTombstone.encodeTombstone(replaced, fields));
    expect(consoleTombstone.isTombstone(written)).toBe(true);
    expect(consoleTombstone.decodeTombstone(written)).toEqual({ token, ...fields });
    expect(stringLockFormat(written, -1)).toBe("tombstone");
    expect(sessionOfValue(written)).toBe(session);
  });

  it("the contract's text is what both write, and both sides read it alike", () => {
    expect(consoleTombstone.encodeTombstone(replaced, fields)).toBe(oracle);
    expect(protocol.decodeTombstone(oracle)).toEqual(consoleTombstone.decodeTombstone(oracle));
    const withoutSession = `rlx:${token}:{"auditId":"a","by":"b","reason":"c","at":1}`;
    const bare = { auditId: "a", by: "b", reason: "c", at: 1 };
    expect(consoleTombstone.encodeTombstone(token, bare)).toBe(withoutSession);
    expect(protocol.decodeTombstone(withoutSession)).toEqual({
      token,
      auditId: "a",
      by: "b",
      reason: "c",
      at: 1,
    });
  });

  it("another library's value gets the console's SHA-1 stand-in token; the library refuses any other token", () => {
    const foreign = "6f1ed002-ab5d-4c3a-9b8e-1c2d3e4f5a6b";
    const written = consoleTombstone.encodeTombstone(foreign, fields);
    const sha1 = createHash("sha1").update(foreign).digest("hex");
    expect(written.startsWith(`rlx:${sha1}:`)).toBe(true);
    expect(protocol.decodeTombstone(written)?.token).toBe(sha1);
    expect(() => protocol.encodeTombstone(foreign, fields)).toThrow(TypeError);
  });

  it("hostile tombstones decode to nothing on both sides and never throw", () => {
    const noAudit = `rlx:${token}:{"by":"b","at":1}`;
    const badAt = `rlx:${token}:{"auditId":"a","at":"soon"}`;
    for (const value of [...garbage, noAudit, badAt, replaced]) {
      expect(protocol.decodeTombstone(value)).toBeUndefined();
      expect(consoleTombstone.decodeTombstone(value)).toBeNull();
    }
  });
});

describe("the revoke marker", () => {
  const value = protocol.encodeValue(token, labelsJson, at, 30_000, session);
  const marker = {
    auditId: randomUUID(),
    by: "admin",
    reason: "deadlock",
    at,
    deadlineAt: at + 5_000,
    value,
  };
  // docs/holder-sessions.md: {"auditId","by","reason","at","deadlineAt","value"}
  const oracle = `{"auditId":"${marker.auditId}","by":"admin","reason":"deadlock","at":${at},"deadlineAt":${at + 5_000},"value":${JSON.stringify(value)}}`;

  it("console encoder → the library's decoder, and the library's record of the release", () => {
    const written = consoleEncodeRevokeMarker(marker);
    expect(protocol.decodeRevokeMarker(written)).toEqual(marker);
    // recordRevokedRelease (marks.ts) adds releasedAt to the JSON the node held.
    const recorded = JSON.stringify({ ...JSON.parse(written), releasedAt: at + 900 });
    expect(protocol.decodeRevokeMarker(recorded)).toEqual({ ...marker, releasedAt: at + 900 });
    expect(protocol.encodeRevokeMarker({ ...marker, releasedAt: at + 900 })).toBe(recorded);
  });

  it("the contract's text is what the console writes, and the library reads it", () => {
    expect(consoleEncodeRevokeMarker(marker)).toBe(oracle);
    expect(protocol.decodeRevokeMarker(oracle)).toEqual(marker);
  });

  it("hostile markers decode to nothing and never throw", () => {
    const noDeadline = JSON.stringify({ ...marker, deadlineAt: "later" });
    const noValue = JSON.stringify({ ...marker, value: 7 });
    for (const text of [...garbage, noDeadline, noValue])
      expect(protocol.decodeRevokeMarker(text)).toBeUndefined();
  });
});

describe("the notice", () => {
  const auditId = randomUUID();

  it("the contract's text decodes; a UTF-8 key's bytes encode as its text", () => {
    // docs/holder-sessions.md: {"kind":…,"resource":"<utf8>","resourceBase64"?:"…","auditId":"<uuid>"}
    const oracle = `{"kind":"revoke","resource":"orders:42","auditId":"${auditId}"}`;
    expect(protocol.decodeNotice(oracle)).toEqual({
      kind: "revoke",
      resource: "orders:42",
      auditId,
    });
    expect(protocol.encodeNotice({ kind: "revoke", resource: "orders:42", auditId })).toBe(oracle);
    expect(
      protocol.encodeNotice({
        kind: "revoke",
        resource: new TextEncoder().encode("orders:42"),
        auditId,
      }),
    ).toBe(oracle);
    const base64 = `{"kind":"force-release","resourceBase64":"${btoa("ünï")}","auditId":"${auditId}"}`;
    expect(protocol.decodeNotice(base64)).toBeUndefined(); // latin1 bytes of "ünï": not UTF-8
    const utf8Base64 = Buffer.from("ünï").toString("base64");
    expect(
      protocol.decodeNotice(`{"kind":"revoke","resourceBase64":"${utf8Base64}","auditId":"a"}`),
    ).toEqual({
      kind: "revoke",
      resource: "ünï",
      auditId: "a",
    });
  });

  it("a key that is not UTF-8 travels as base64, as the console's key names do, and names no lock of the library", () => {
    const key = Buffer.from([0x6f, 0x3a, 0xff, 0xfe, 0x00, 0x41]);
    const message = JSON.parse(
      protocol.encodeNotice({ kind: "force-release", resource: key, auditId }),
    );
    expect(message).toEqual({
      kind: "force-release",
      resource: key.toString("utf8"),
      resourceBase64: key.toString("base64"),
      auditId,
    });
    expect(protocol.decodeNotice(JSON.stringify(message))).toBeUndefined();
  });

  it("hostile notices decode to nothing and never throw", () => {
    const notices = [
      `{"kind":"delete","resource":"r","auditId":"a"}`,
      `{"kind":"revoke","resource":"r"}`,
      `{"kind":"revoke","auditId":"a"}`,
      `{"kind":"revoke","resource":7,"auditId":"a"}`,
      `{"kind":"revoke","resourceBase64":"%%%not base64","auditId":"a"}`,
      `{"kind":"revoke","resourceBase64":"/w==","auditId":"a"}`,
    ];
    for (const text of [...garbage, ...notices])
      expect(protocol.decodeNotice(text)).toBeUndefined();
  });
});

describe("the heartbeat", () => {
  it("library encoder → the console's reader, and the contract's text reads alike", () => {
    const written = protocol.heartbeatEncoder(labelsJson, at, 1000)(17);
    // docs/holder-sessions.md: {"v":1,"labels":{…},"startedAt":<ms>,"heartbeatMs":<n>,"clientId":<int>}
    const oracle = `{"v":1,"labels":${labelsJson},"startedAt":${at},"heartbeatMs":1000,"clientId":17}`;
    expect(written).toBe(oracle);
    const read = { labels, startedAt: at, heartbeatMs: 1000, clientId: 17 };
    expect(parseHeartbeat(oracle)).toEqual(read);
    expect(protocol.decodeHeartbeat(oracle)).toEqual(read);
  });

  it("reads what it can of a garbled heartbeat of version 1, and nothing of anything else", () => {
    expect(parseHeartbeat(`{"v":1,"labels":{"a":1},"startedAt":-5,"clientId":"x"}`)).toEqual({
      labels: {},
      startedAt: null,
      heartbeatMs: protocol.DEFAULT_HEARTBEAT_MS,
      clientId: null,
    });
    for (const text of [...garbage, `{"v":2,"clientId":1}`]) {
      expect(protocol.decodeHeartbeat(text)).toBeUndefined();
      expect(parseHeartbeat(text)).toBeNull();
    }
  });
});

describe("the waiter entry", () => {
  const member = protocol.encodeWaiterMember({
    id: "00112233aabbccdd",
    labelsJson,
    sinceMs: at,
    firstFailedAtMs: at + 40,
    sessionId: session,
    wakeChannel: "redlock:wake:0123456789abcdef",
  });
  // docs/holder-sessions.md: {"id","labels","since","firstFailedAt","session","wake"?}
  const oracle = `{"id":"00112233aabbccdd","labels":${labelsJson},"since":${at},"firstFailedAt":${at + 40},"session":"${session}","wake":"redlock:wake:0123456789abcdef"}`;

  it("library encoder → the console's readers; the contract's text reads alike", () => {
    expect(member).toBe(oracle);
    expect(parseWaiterRef(oracle, at + 30_000)).toEqual({
      id: "00112233aabbccdd",
      session,
      sinceMs: at + 40,
      expiresAtMs: at + 30_000,
      labels,
    });
    expect(sessionOfWaiterMember(oracle)).toBe(session);
    expect(parseWaiterMember(oracle, at + 30_000)).toEqual({
      id: "00112233aabbccdd",
      labels,
      since: at,
      expiresAt: at + 30_000,
    });
    expect(protocol.decodeWaiterMember(oracle)).toEqual({
      id: "00112233aabbccdd",
      labels,
      since: at,
      firstFailedAt: at + 40,
      session,
      wake: "redlock:wake:0123456789abcdef",
    });
  });

  it("an entry written before firstFailedAt and sessions still reads, dated from since", () => {
    const old = `{"id":"00112233aabbccdd","labels":{},"since":${at}}`;
    expect(
      protocol.encodeWaiterMember({ id: "00112233aabbccdd", labelsJson: "{}", sinceMs: at }),
    ).toBe(old);
    expect(parseWaiterRef(old, at + 1)).toMatchObject({ session: null, sinceMs: at });
  });

  it("hostile entries decode to nothing on both sides and never throw", () => {
    const entries = [
      `{"id":7,"labels":{},"since":1}`,
      `{"id":"${"i".repeat(65)}","labels":{},"since":1}`,
      `{"id":"a","labels":{},"since":1.5}`,
      `{"id":"a","labels":{"x":1},"since":1}`,
      `{"id":"a","labels":[],"since":1}`,
    ];
    for (const text of [...garbage, ...entries]) {
      expect(protocol.decodeWaiterMember(text)).toBeUndefined();
      expect(parseWaiterRef(text, 1)).toBeNull();
      expect(parseWaiterMember(text, 1)).toBeNull();
      expect(sessionOfWaiterMember(text)).toBeNull();
    }
  });
});

describe("across real masters", () => {
  const clients = connect(sharedUrls());
  const nodes: ConsoleNode[] = clients.map((client, index) => ({
    kind: "single",
    id: `node-${index + 1}`,
    index,
    address: `${client.options.host}:${client.options.port}`,
    tls: false,
    client,
  }));
  const instances: Redlock[] = [];
  /** A Redlock on clients of its own: quit() closes them. */
  const redlockOf = (
    settings: ConstructorParameters<typeof Redlock>[1],
    own = connect(sharedUrls()),
  ) => {
    const redlock = new Redlock(own, settings);
    instances.push(redlock);
    return { redlock, own };
  };
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.quit()));
    clients.forEach((client) => client.disconnect());
  });

  it("the heartbeat a session writes is what the console parses", async () => {
    const { redlock, own } = redlockOf({ owner: { service: "contract" }, retryCount: 0 });
    const lock = await redlock.acquire([`protocol:${randomUUID()}`], 5_000);
    const id = redlock.session!.id;
    let text: string | null = null;
    for (let tries = 0; text === null && tries < 50; tries += 1) {
      text = await own[0]!.get(sessionKey(id));
      if (text === null) await sleep(20);
    }
    const heartbeat = parseHeartbeat(text!);
    expect(heartbeat).toMatchObject({
      heartbeatMs: 1000,
      labels: { service: "contract", pid: String(process.pid) },
    });
    const clientId = Number(await own[0]!.client("ID"));
    expect(heartbeat!.clientId).toBe(clientId);
    expect(sessionOfValue(lock.value)).toBe(id);
    await lock.release();
  });

  it("the waiter entry a contender lists is what the console's wait probe reads", async () => {
    const resource = `protocol:${randomUUID()}`;
    const holder = redlockOf({ retryCount: 0 }).redlock;
    const contender = redlockOf({ retryCount: -1, retryDelay: 50, retryJitter: 0 }).redlock;
    const lock = await holder.acquire([resource], 5_000);
    const waiting = contender.acquire([resource], 5_000);
    let listed = new Map<string, unknown>();
    for (let tries = 0; listed.size === 0 && tries < 100; tries += 1) {
      listed = (await probeWaiters(nodes, resource, 500)) ?? new Map();
      if (listed.size === 0) await sleep(20);
    }
    const [ref] = [...listed.values()] as Array<ReturnType<typeof parseWaiterRef>>;
    expect(ref).toMatchObject({
      session: contender.session!.id,
      labels: { pid: String(process.pid) },
    });
    expect(ref!.id).toMatch(/^[0-9a-f]{16}$/);
    await lock.release();
    await (await waiting).release();
  });

  it("the notice the console publishes is what the library's subscriber decodes", async () => {
    const subscriber = new Redis(clients[0]!.options);
    const sessionId = randomBytes(16).toString("hex");
    const heard: string[] = [];
    subscriber.on("message", (_channel: string, message: string) => heard.push(message));
    await subscriber.subscribe(noticeChannel(sessionId));
    const auditId = randomUUID();
    const key = Buffer.from("orders:ü:42");
    expect(await publishNotice(nodes, sessionId, { kind: "revoke", key, auditId }, 500)).toBe(5);
    for (let tries = 0; heard.length === 0 && tries < 50; tries += 1) await sleep(10);
    subscriber.disconnect();
    expect(heard).toHaveLength(1);
    expect(protocol.decodeNotice(heard[0]!)).toEqual({
      kind: "revoke",
      resource: "orders:ü:42",
      auditId,
    });
  });
});
