/**
 * Polling mode on real masters whose keyspace notifications are off (issue 32 row 10, issue 33
 * part 2): an extension made between two passes is an extension, never a false expiry followed by
 * a new acquisition; a release is a release. Holds shorter than a pass are not seen, and the
 * history says it samples, never that it is complete.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Transition } from "@/lib/api";
import Redlock from "@redlock-console/redlock";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { startTestConsole, type TestConsole } from "./helpers";

const { masters } = usePrivateMasters(3);
let nodes: Redis[];
let tc: TestConsole;

beforeAll(async () => {
  nodes = connect(masters().urls);
  await Promise.all(nodes.map((node) => node.config("SET", "notify-keyspace-events", "")));
  tc = startTestConsole(masters().urls);
  await tc.ready();
  await tc.sync();
}, 30_000);

afterAll(async () => {
  await tc?.close();
  if (nodes) await disconnect(nodes);
});

/** The lock's transitions, oldest first. */
const transitionsOf = (resource: string): Transition[] =>
  tc.ctx.timeline.transitions(1_000, (t) => t.resource === resource).reverse();

describe("polling mode", () => {
  it("is the mode of every node here", () => {
    for (let node = 0; node < 3; node += 1)
      expect(tc.ctx.index.nodeStatus(node).mode).toBe("polling");
  });

  it("records the library's own extensions (1.5 s before expiry) as extensions, never as expiries", async () => {
    // TTL 4 s, extended by the library 1.5 s before each expiry: a pass every ~second sees each
    // extension. The hold lasts until the history shows two extensions, however long the passes
    // take (it used to be 8 s of a 2 s TTL with 500 ms to spare, then "at least 3 extensions":
    // a count of passes in a window, and a library on a stalled machine that could rightly lose
    // the lock; both fail for speed, not for a wrong history).
    const redlock = new Redlock(nodes, {
      retryCount: 0,
      session: false,
      automaticExtensionThreshold: 1_500,
    });
    const resource = `${tc.prefix}extended`;
    const kindsOf = () => transitionsOf(resource).map((t) => t.kind);
    const extensions = () => kindsOf().filter((kind) => kind === "extended").length;
    await redlock.using([resource], 4_000, async (signal) => {
      await expect.poll(extensions, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(2);
      expect(signal.aborted).toBe(false);
    });
    await expect.poll(() => kindsOf().at(-1), { timeout: 20_000, interval: 100 }).toBe("released");
    const kinds = kindsOf();
    expect(kinds[0]).toBe("acquired");
    expect(kinds.filter((kind) => kind === "acquired")).toHaveLength(1);
    expect(kinds).not.toContain("expired");
  }, 60_000);
  it("never claims a complete history: six holds of 150 ms, and the horizon says it samples, node by node", async () => {
    const redlock = new Redlock(nodes, { retryCount: 0, session: false });
    const resource = `${tc.prefix}brief`;
    for (let hold = 0; hold < 6; hold += 1) {
      const lock = await redlock.acquire([resource], 5_000);
      await sleep(150);
      await lock.release();
      await sleep(100);
    }
    await tc.sync();
    const horizon = tc.ctx.timeline.horizon();
    expect(horizon.basis).toBe("sampled");
    expect(horizon.completeSince).toBeNull();
    expect(horizon.sampledSince).not.toBeNull();
    expect(horizon.sampled.map((node) => node.nodeId)).toEqual(["node-1", "node-2", "node-3"]);
    expect(horizon.sampleNote).toMatch(
      /^History is a sample, never complete: node-1 is polled every ~\d.*Holds shorter than that are not seen/,
    );
    // What the sample saw of the six holds is at most six acquisitions, never more.
    const acquired = transitionsOf(resource).filter((t) => t.kind === "acquired");
    expect(acquired.length).toBeLessThanOrEqual(6);
  }, 30_000);
});
