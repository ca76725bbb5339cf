/**
 * Issue 32 rows 6 and 7, and value digests, on real masters: multi-MB values and labels never travel
 * whole (neither from the masters nor to the browser), the read budget counts bytes, and anonymous
 * readers see digests of values, never the values; force-release compares by digest.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as events from "@/app/api/events/route";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as forceRelease from "@/app/api/locks/force-release/route";
import * as locks from "@/app/api/locks/route";
import * as metrics from "@/app/api/metrics/route";
import type { ErrorBody, LockResponse, LocksResponse, Transition } from "@/lib/api";
import { readLockKeys } from "@/lib/server/locks/read/read-node";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const MiB = 1024 * 1024;
const { masters } = usePrivateMasters(3);
let nodes: Redis[];

beforeAll(() => {
  nodes = connect(masters().urls);
});
afterAll(() => disconnect(nodes));

/** This library's value with a `service` label of `labelBytes` bytes (no session). */
const hugeValue = (index: number, labelBytes: number) =>
  `rl1:${index.toString(16).padStart(40, "a")}:{"acquiredAt":${Date.now()},"ttlMs":60000,"labels":{"service":"${"s".repeat(labelBytes)}","host":"h${index}"}}`;

/** Bytes the master has sent to all its clients so far. */
async function bytesSent(node: Redis): Promise<number> {
  return Number(/total_net_output_bytes:(\d+)/.exec(await node.info("stats"))![1]);
}

describe("huge values and labels (issue 32 row 6)", () => {
  let tc: TestConsole;
  beforeAll(async () => {
    tc = startTestConsole(masters().urls);
    await tc.sync();
  });
  afterAll(() => tc.close());

  it("8 keys with 4 MB owner labels on 3 masters: the masters send KiBs, every read route answers 200 with a bounded body and says the label was cut", async () => {
    const keys = Array.from({ length: 8 }, (_, index) => `${tc.prefix}huge-${index}`);
    const values = keys.map((_, index) => hugeValue(index, 4 * MiB));
    await Promise.all(
      nodes.flatMap((node) =>
        keys.map((key, index) => node.set(key, values[index]!, "PX", 120_000)),
      ),
    );
    const sentBefore = await Promise.all(nodes.map(bytesSent));
    await tc.sync();
    const sent = (await Promise.all(nodes.map(bytesSent))).map(
      (after, i) => after - sentBefore[i]!,
    );
    // Without the cap each master sent 8 × 4 MB to the console's read script.
    for (const bytes of sent) expect(bytes).toBeLessThan(MiB);

    const list = await call<LocksResponse>(locks.GET, "/api/locks?limit=50");
    expect(list.status).toBe(200);
    expect(list.text.length).toBeLessThan(200_000);
    const row = list.body.items.find((item) => item.resource === keys[0])!;
    expect(row).toMatchObject({ state: "held", valueLength: values[0]!.length });
    expect(row.owner).toMatchObject({
      kind: "labelled",
      labels: { service: "s".repeat(256), host: "h0" },
      truncatedLabels: { service: 4 * MiB },
    });

    const one = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${encodeURIComponent(keys[0]!)}`,
    );
    expect(one.status).toBe(200);
    expect(one.text.length).toBeLessThan(40_000);
    expect(one.body.lock?.value).toHaveLength(4096);
    expect(one.body.lock?.valueLength).toBe(values[0]!.length);

    const scrape = await call(metrics.GET, "/api/metrics");
    expect(scrape.status).toBe(200);
    expect(scrape.text.length).toBeLessThan(200_000);
    expect(scrape.text).not.toContain("s".repeat(65));

    const history = await call<{ transitions: Transition[] }>(events.GET, "/api/events?limit=1000");
    expect(history.status).toBe(200);
    expect(history.text.length).toBeLessThan(500_000);
  });
});

describe("the read budget counts bytes (issue 32 row 7)", () => {
  it("one read call stops at its byte allowance: 4 keys of 4 MB with 1 MiB allowed read one key per call, never returning a value whole", async () => {
    const prefix = `bytes-${Date.now()}:`;
    const keys = Array.from({ length: 4 }, (_, index) => Buffer.from(`${prefix}${index}`));
    await Promise.all(
      keys.map((key, index) => nodes[0]!.set(key, hugeValue(index, 4 * MiB), "PX", 60_000)),
    );
    try {
      const first = await readLockKeys(nodes[0]!, keys, Date.now(), false, MiB);
      expect(first.states).toHaveLength(1);
      expect(first.touchedBytes).toBeGreaterThan(4 * MiB);
      expect(first.touchedBytes).toBeLessThan(5 * MiB);
      expect(first.states[0]?.value).toHaveLength(4096);
      const all = await readLockKeys(nodes[0]!, keys, Date.now(), false, 64 * MiB);
      expect(all.states.filter(Boolean)).toHaveLength(4);
    } finally {
      await nodes[0]!.del(...keys);
    }
  });

  it("a listing of 4 keys of 4 MB at CONSOLE_READ_BYTES_PER_S = 8 MiB takes at least 16 MiB / 8 MiB/s, and completes", async () => {
    const tc = startTestConsole([masters().urls[0]!], { readBytesPerS: 8 * MiB });
    try {
      const keys = Array.from({ length: 4 }, (_, index) => `${tc.prefix}budget-${index}`);
      await Promise.all(
        keys.map((key, index) => nodes[0]!.set(key, hugeValue(index, 4 * MiB), "PX", 60_000)),
      );
      const startedAt = performance.now();
      await tc.sync();
      const listedS = (performance.now() - startedAt) / 1000;
      // The bucket starts with one burst (a tenth of a second's bytes); the rest is paid at 8 MiB/s.
      expect(listedS).toBeGreaterThanOrEqual((16 * MiB - 0.8 * MiB) / (8 * MiB) - 0.1);
      const list = await call<LocksResponse>(locks.GET, "/api/locks");
      expect(list.body.items.map((item) => item.resource).sort()).toEqual(keys);
      await nodes[0]!.del(...keys);
    } finally {
      await tc.close();
    }
  });
});

describe("values are shown to signed-in readers, digests to anonymous ones", () => {
  let tc: TestConsole;
  beforeAll(async () => {
    tc = startTestConsole(masters().urls);
    await tc.sync();
  });
  afterAll(() => tc.close());

  const setEverywhere = async (key: string, value: string) => {
    await Promise.all(nodes.map((node) => node.set(key, value, "PX", 60_000)));
    await tc.sync();
  };

  it("an anonymous read shows no value, only its digest; a signed-in read shows the value", async () => {
    const key = `${tc.prefix}secret`;
    const secret = "0123456789abcdef0123456789abcdef01234567"; // a 40-hex application secret with a TTL
    await setEverywhere(key, secret);
    const anonymous = await call<LocksResponse>(locks.GET, "/api/locks", { token: null });
    expect(anonymous.text).not.toContain(secret);
    const row = anonymous.body.items.find((item) => item.resource === key)!;
    expect(row.value).toMatch(/^sha1:[0-9a-f]{12}$/);
    expect(row.value).toBe(row.valueDigest);
    const page = await call(lockRoute.GET, `/api/locks/${encodeURIComponent(key)}`, {
      token: null,
    });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(secret);
    const history = await call(events.GET, "/api/events", { token: null });
    expect(history.text).not.toContain(secret);
    const signedIn = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${encodeURIComponent(key)}`,
    );
    expect(signedIn.body.lock).toMatchObject({ value: secret, valueDigest: row.valueDigest });
  });

  it("force-release by digest deletes only a matching value; a mismatched digest deletes nothing", async () => {
    const key = `${tc.prefix}by-digest`;
    const value = hugeValue(1, MiB); // shown cut: compared by digest
    await setEverywhere(key, value);
    const one = await call<LockResponse>(lockRoute.GET, `/api/locks/${encodeURIComponent(key)}`);
    const digest = one.body.lock!.valueDigest!;
    const wrong = `sha1:${digest.slice(5) === "000000000000" ? "111111111111" : "000000000000"}`;
    const body = { resource: key, noSession: "release-now", reason: "digest test" };
    const refused = await call<ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
      body: { ...body, valueDigest: wrong },
    });
    expect(refused.status).toBe(409);
    expect(await Promise.all(nodes.map((node) => node.strlen(key)))).toEqual([
      value.length,
      value.length,
      value.length,
    ]);
    const released = await call(forceRelease.POST, "/api/locks/force-release", {
      body: { ...body, valueDigest: digest },
    });
    expect(released.status).toBe(200);
    expect(released.text.length).toBeLessThan(40_000);
    expect(await Promise.all(nodes.map((node) => node.exists(key)))).toEqual([0, 0, 0]);
  });

  it.each([
    ["a digest of another shape", { valueDigest: "sha1:XYZ" }],
    ["a full SHA-1", { valueDigest: `sha1:${"a".repeat(40)}` }],
    ["a digest and a value", { valueDigest: "sha1:aaaaaaaaaaaa", expectedValue: "a".repeat(40) }],
    ["a digest and force", { valueDigest: "sha1:aaaaaaaaaaaa", force: true }],
  ])("refuses force-release with %s (400, nothing deleted)", async (_, fields) => {
    const key = `${tc.prefix}bad-digest`;
    await setEverywhere(key, "b".repeat(40));
    const answer = await call<ErrorBody>(forceRelease.POST, "/api/locks/force-release", {
      body: { resource: key, reason: "bad digest", noSession: "release-now", ...fields },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("invalid_request");
    expect(await nodes[0]!.get(key)).toBe("b".repeat(40));
  });
});
