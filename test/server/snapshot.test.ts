import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as lockRoute from "@/app/api/locks/[...resource]/route";
import * as extendRoute from "@/app/api/locks/extend/route";
import * as locks from "@/app/api/locks/route";
import type { LockResponse, LockRow, LocksResponse } from "@/lib/api";
import { setDefaultConsole } from "@/lib/server/default-console";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
const key = (name: string) => `${tc.prefix}${name}`;

/** Writes `value` under `name` with a TTL on the given node indexes, as a foreign client would. */
async function put(
  name: string | Buffer,
  value: string,
  on: number[],
  ttlMs = 30_000,
): Promise<void> {
  await Promise.all(on.map((index) => nodes[index]!.set(name, value, "PX", ttlMs)));
}

async function list(query = ""): Promise<LocksResponse> {
  await tc.sync();
  const response = await call<LocksResponse>(locks.GET, `/api/locks${query}`);
  expect(response.status).toBe(200);
  return response.body;
}

const rowOf = (body: LocksResponse, name: string): LockRow | undefined =>
  body.items.find((row) => row.resource === key(name));

beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
  await put(key("held"), "a".repeat(40), [0, 1, 2, 3, 4]);
  await put(key("partial"), "b".repeat(40), [0, 1]);
  await put(key("conflict"), "c".repeat(40), [0, 1, 2]);
  await put(key("conflict"), "d".repeat(40), [3]);
  await put(key("node-redlock"), "0f1e2d3c4b5a69788796a5b4c3d2e1f0", [0, 1, 2, 3]);
  await put(key("redsync"), "kB1x3rN9q0vG7yZ2mL5wEw==", [1, 2, 3]);
  await put(key("redlock-rb"), "c9a0b8e4-1b2f-4a44-9d1c-1a2b3c4d5e6f", [2, 3, 4]);
  for (const index of [0, 1, 2]) {
    await nodes[index]!.hset(key("redisson"), "8c2f6a3e-1111-2222-3333-444455556666:57", "2");
    await nodes[index]!.pexpire(key("redisson"), 30_000);
  }
  await nodes[0]!.rpush(key("a-list"), "not", "a", "lock");
  await nodes[0]!.hset(key("a-hash"), "name", "alice");
  await put(`redlock:fence:${key("held")}`, "7", [0, 1, 2]);
});

afterAll(async () => {
  await Promise.all(
    nodes.map(async (node) => {
      const keys = await node.keys(`${tc.prefix}*`);
      if (keys.length) await node.del(...keys);
      await node.del(`redlock:fence:${key("held")}`);
    }),
  );
  await tc.close();
  await disconnect(nodes);
});

describe("GET /api/locks: the snapshot", () => {
  it("folds held, partial and conflict states with quorum and validity", async () => {
    const body = await list();
    expect(rowOf(body, "held")).toMatchObject({
      state: "held",
      quorum: 5,
      quorumSize: 3,
      value: "a".repeat(40),
    });
    expect(rowOf(body, "held")!.validityMs).toBeGreaterThan(25_000);
    expect(rowOf(body, "held")!.validityMs).toBeLessThanOrEqual(30_000);
    expect(rowOf(body, "partial")).toMatchObject({ state: "partial", quorum: 2, validityMs: null });
    expect(rowOf(body, "conflict")).toMatchObject({
      state: "conflict",
      quorum: 3,
      value: "c".repeat(40),
    });
    expect(rowOf(body, "conflict")!.nodes.map((node) => node.value)).toEqual(
      ["c", "c", "c", "d", null].map((c) => (c ? c.repeat(40) : null)),
    );
    expect(body.serverTime).toBeGreaterThan(Date.now() - 10_000);
  });

  it("recognises node-redlock, redsync, redlock-rb and Redisson formats", async () => {
    const body = await list();
    expect(rowOf(body, "node-redlock")).toMatchObject({
      state: "held",
      format: "string",
      quorum: 4,
    });
    expect(rowOf(body, "redsync")).toMatchObject({
      state: "held",
      value: "kB1x3rN9q0vG7yZ2mL5wEw==",
    });
    expect(rowOf(body, "redlock-rb")).toMatchObject({ state: "held", quorum: 3 });
    const redisson = rowOf(body, "redisson");
    expect(redisson).toMatchObject({
      state: "held",
      format: "redisson-hash",
      value: "8c2f6a3e-1111-2222-3333-444455556666:57",
    });
    expect(redisson!.nodes[0]!.holdCount).toBe(2);
  });

  it("shows neither reserved redlock: keys nor keys that are no lock", async () => {
    const body = await list();
    expect(rowOf(body, "a-list")).toBeUndefined();
    expect(rowOf(body, "a-hash")).toBeUndefined();
    expect(body.items.some((row) => row.resource.startsWith("redlock:"))).toBe(false);
    expect(body.total).toBe(7);
    expect(body.counts).toEqual({ held: 5, partial: 1, conflict: 1, releasing: 0 });
  });

  it("filters by state and by glob", async () => {
    expect((await list("?state=conflict")).items.map((row) => row.resource)).toEqual([
      key("conflict"),
    ]);
    expect(
      (await list(`?match=${encodeURIComponent(`${tc.prefix}red*`)}`)).items.map(
        (row) => row.resource,
      ),
    ).toEqual([key("redisson"), key("redlock-rb"), key("redsync")]);
  });

  it("paginates with a cursor: every row once, in key order", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: LocksResponse = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...body.items.map((row) => row.resource));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(7);
  });

  it("serves concurrent viewers the same rows from the index, and says the listing is complete", async () => {
    const bodies = await Promise.all(Array.from({ length: 10 }, () => list()));
    const resources = bodies.map((body) => JSON.stringify(body.items.map((row) => row.resource)));
    expect(new Set(resources).size).toBe(1);
    expect(bodies[0]!.listing.complete).toBe(true);
    expect(bodies[0]!.listing.nodes.map((node) => node.mode)).toEqual(Array(5).fill("watching"));
  });
});

describe("GET /api/locks/{resource}", () => {
  it("reads one resource from the index, with its counters read fresh from every node", async () => {
    const response = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${encodeURIComponent(key("partial"))}`,
    );
    expect(response.status).toBe(200);
    expect(response.body.lock).toMatchObject({ state: "partial", quorum: 2 });
    expect(response.body.lock!.nodes).toHaveLength(5);
  });

  it("round-trips names with slashes, spaces, unicode and non-UTF-8 bytes", async () => {
    const names = [key("a/b c"), key("ünïcødé ✓"), key("100%")];
    for (const name of names) {
      await put(name, "e".repeat(40), [0, 1, 2]);
      await tc.sync(); // the row comes from the live index
      const response = await call<LockResponse>(
        lockRoute.GET,
        `/api/locks/${encodeURIComponent(name)}`,
      );
      expect(response.body.lock?.resource).toBe(name);
    }
    const binary = Buffer.concat([Buffer.from(key("bin-")), Buffer.from([0xff, 0x00, 0xfe])]);
    await put(binary, "f".repeat(40), [0, 1, 2]);
    await tc.sync();
    const encoded = [...binary].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
    const response = await call<LockResponse>(lockRoute.GET, `/api/locks/${encoded}`);
    expect(response.body.lock).toMatchObject({
      state: "held",
      resourceBase64: binary.toString("base64"),
    });
    const byBase64 = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${encodeURIComponent(binary.toString("base64"))}?encoding=base64`,
    );
    expect(byBase64.body.lock).toMatchObject({
      state: "held",
      resourceBase64: binary.toString("base64"),
    });
    const urlSafe = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${binary.toString("base64url")}?encoding=base64`,
    );
    expect(urlSafe.body.lock?.state).toBe("held");
    const row = (await list()).items.find(
      (item) => item.resourceBase64 === binary.toString("base64"),
    );
    expect(row?.state).toBe("held");
  });

  it("answers lock: null for a resource nobody holds", async () => {
    const response = await call<LockResponse>(
      lockRoute.GET,
      `/api/locks/${encodeURIComponent(key("nobody"))}`,
    );
    expect(response.status).toBe(200);
    expect(response.body.lock).toBeNull();
  });

  it("still reads a lock named like an action route (extend)", async () => {
    await put("extend", "9".repeat(40), [0, 1, 2], 5_000);
    // A console whose LOCK_MATCH covers "extend": a key outside it is refused (issue 32 row 2).
    const other = startTestConsole(sharedUrls(), { lockMatch: ["extend"] });
    const response = await call<LockResponse>(extendRoute.GET, "/api/locks/extend").finally(
      async () => {
        await other.close();
        setDefaultConsole(tc.ctx);
      },
    );
    await Promise.all(nodes.map((node) => node.del("extend")));
    expect(response.body.lock).toMatchObject({ resource: "extend", state: "held" });
  });

  it("refuses reserved keys and malformed encodings with 400", async () => {
    expect(
      (await call(lockRoute.GET, `/api/locks/${encodeURIComponent("redlock:fence:x")}`)).status,
    ).toBe(400);
    expect((await call(lockRoute.GET, "/api/locks/%zz")).status).toBe(400);
  });
});
