// test-group: alone
/** The live index at scale: 10,000 locks on each of five nodes, listed once, then paged from memory. */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as locks from "@/app/api/locks/route";
import type { LocksResponse } from "@/lib/api";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const LOCKS = 10_000;
const PREFIX = `scale-${process.pid}:`;
let tc: TestConsole;
let nodes: Redis[];

let startedAtMs = 0;

beforeAll(async () => {
  nodes = connect(sharedUrls());
  await Promise.all(
    nodes.map(async (node) => {
      const pipeline = node.pipeline();
      for (let index = 0; index < LOCKS; index += 1) {
        pipeline.set(`${PREFIX}${index}`, index.toString(16).padStart(40, "0"), "PX", 120_000);
      }
      await pipeline.exec();
    }),
  );
  startedAtMs = performance.now();
  // A read of a chunk must not hit the 500 ms default per-command timeout when other test files
  // load the two cores (a node cut off there would be relisted): what this test bounds is the listing.
  tc = startTestConsole(sharedUrls(), { nodeTimeoutMs: 5_000, lockMatch: ["*"] });
}, 60_000);

afterAll(async () => {
  await Promise.all(
    nodes.map(async (node) => {
      const pipeline = node.pipeline();
      for (let index = 0; index < LOCKS; index += 1) pipeline.del(`${PREFIX}${index}`);
      await pipeline.exec();
    }),
  );
  await tc.close();
  await disconnect(nodes);
});

describe(`the live index of ${LOCKS} locks on five nodes`, () => {
  it("lists every lock as held within the budget, then serves pages from memory", async () => {
    await tc.sync(); // every node listed
    const listedMs = performance.now() - startedAtMs;
    const statuses = tc.ctx.index.watches.map((watch) => watch.status());
    const started = performance.now();
    const response = await call<LocksResponse>(
      locks.GET,
      `/api/locks?limit=1000&match=${encodeURIComponent(`${PREFIX}*`)}`,
    );
    const pageMs = performance.now() - started;
    console.log(
      `index of ${LOCKS} locks x 5 nodes: listed in ${listedMs.toFixed(0)} ms (per node ${statuses.map((status) => status.listingMs).join(", ")} ms); a page of 1000 in ${pageMs.toFixed(0)} ms`,
    );
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(LOCKS);
    expect(response.body.items).toHaveLength(1000);
    expect(response.body.items.every((row) => row.state === "held" && row.quorum === 5)).toBe(true);
    expect(response.body.listing.complete).toBe(true);
    // Each node visits ~LOCKS keys and reads ~LOCKS locks at the default budget of 20,000 keys/s:
    // about a second; the bound leaves room for a loaded 2-core machine.
    expect(listedMs).toBeLessThan(20_000);
    expect(pageMs).toBeLessThan(2_000);
  });
});
