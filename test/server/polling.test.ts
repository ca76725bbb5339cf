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

  it("records the library's own extensions (500 ms before expiry) as extensions, never as expiries", async () => {
    const redlock = new Redlock(nodes, { retryCount: 0, session: false });
    const resource = `${tc.prefix}extended`;
    // TTL 2 s, extended by the library 500 ms before each expiry: ~5 extensions in 8 s.
    await redlock.using([resource], 2_000, async (signal) => {
      await sleep(8_000);
      expect(signal.aborted).toBe(false);
    });
    await sleep(3_000); // past the last TTL: a false expiry would show by now
    const kinds = transitionsOf(resource).map((t) => t.kind);
    expect(kinds[0]).toBe("acquired");
    expect(kinds.at(-1)).toBe("released");
    expect(kinds.filter((kind) => kind === "acquired")).toHaveLength(1);
    expect(kinds).not.toContain("expired");
    expect(kinds.filter((kind) => kind === "extended").length).toBeGreaterThanOrEqual(3);
  }, 30_000);
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
