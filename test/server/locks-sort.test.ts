/**
 * `GET /api/locks?sort=&order=&owner=`: the server orders and filters every lock of the index (not
 * only a first page), on real masters; an unknown sort is a 400, never silently the default order.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as locks from "@/app/api/locks/route";
import type { ErrorBody, LocksResponse } from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls, sleep } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;
let nodes: Redis[];
const key = (name: string) => `${tc.prefix}${name}`;

/** Acquired in this order, 30 ms apart, so held-for orders them; TTLs order validity differently. */
const HOLDS = [
  { name: "a", service: "payroll", ttlMs: 40_000 },
  { name: "b", service: "billing", ttlMs: 20_000 },
  { name: "c", service: "billing", ttlMs: 60_000 },
  { name: "d", service: "audit", ttlMs: 30_000 },
] as const;

const namesOf = (page: LocksResponse) =>
  page.items.map((row) => row.resource.slice(tc.prefix.length));

async function page(query: string): Promise<LocksResponse> {
  const response = await call<LocksResponse>(locks.GET, `/api/locks?${query}`, { token: null });
  expect(response.status).toBe(200);
  return response.body;
}

beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  nodes = connect(sharedUrls());
  await tc.ready();
  for (const hold of HOLDS) {
    const redlock = new Redlock(nodes, {
      retryCount: 0,
      owner: { service: hold.service },
      session: false,
    });
    await redlock.acquire([key(hold.name)], hold.ttlMs);
    await sleep(30);
  }
  // Another library's lock: no owner, no held-for; sorted last by held for and by service.
  await Promise.all(nodes.map((node) => node.set(key("e"), "9".repeat(40), "PX", 50_000)));
  await tc.sync();
});

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.del(...["a", "b", "c", "d", "e"].map(key))));
  await tc.close();
  await disconnect(nodes);
});

describe("GET /api/locks sorted and filtered by the server", () => {
  it("sorts by validity left, ascending and descending", async () => {
    expect(namesOf(await page("sort=validity"))).toEqual(["b", "d", "a", "e", "c"]);
    expect(namesOf(await page("sort=validity&order=desc"))).toEqual(["c", "e", "a", "d", "b"]);
  });

  it("sorts by time held (shortest first ascending), owners unknown last either way", async () => {
    expect(namesOf(await page("sort=heldFor"))).toEqual(["d", "c", "b", "a", "e"]);
    expect(namesOf(await page("sort=heldFor&order=desc"))).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("sorts by the owner's service label, ties by resource, no service last", async () => {
    expect(namesOf(await page("sort=service"))).toEqual(["d", "b", "c", "a", "e"]);
    expect(namesOf(await page("sort=resource&order=desc"))).toEqual(["e", "d", "c", "b", "a"]);
  });

  it("filters by owner label over every lock, paging through the sorted order", async () => {
    const first = await page("owner=service%3Dbilling&sort=validity&order=desc&limit=1");
    expect(first.total).toBe(2);
    expect(namesOf(first)).toEqual(["c"]);
    expect(first.nextCursor).not.toBeNull();
    const second = await page(
      `owner=service%3Dbilling&sort=validity&order=desc&limit=1&cursor=${first.nextCursor}`,
    );
    expect(namesOf(second)).toEqual(["b"]);
    expect(second.nextCursor).toBeNull();
    // A bare label name: any lock whose owner has it.
    expect((await page("owner=service")).total).toBe(4);
  });

  it("answers 400 with an error code for an unknown sort or order", async () => {
    for (const query of ["sort=owner", "sort=heldfor", "order=up"]) {
      const response = await call<ErrorBody>(locks.GET, `/api/locks?${query}`, { token: null });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(response.body.error.message).toMatch(/sort|order/);
    }
  });
});
