/**
 * Polling mode on real masters whose keyspace notifications are off (issue 32 row 10, issue 33
 * part 2): an extension made between two passes is an extension, never a false expiry followed by
 * a new acquisition; a release is a release.
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
});
