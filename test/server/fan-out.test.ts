/**
 * The fan-out over the nodes (lib/server/actions/fan-out.ts) on three private masters, one of them
 * SIGSTOPped: which nodes answered, which stayed silent (skipped by the next phase), and which were
 * sent a write they did not answer (pending), and do run it when they resume.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fanOut } from "@/lib/server/actions/fan-out";
import type { ConsoleNode } from "@/lib/server/node-registry";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { startTestConsole, type TestConsole } from "./helpers";

const PAUSED = 2;
const DEADLINE_MS = 300;
const masters = usePrivateMasters(3);
let tc: TestConsole;
let direct: Redis[];
let nodes: readonly ConsoleNode[];
const notHung = () => false;

beforeAll(async () => {
  direct = connect(masters.masters().urls);
  tc = startTestConsole(masters.masters().urls);
  await tc.ready();
  nodes = tc.ctx.registry.nodes;
});

afterAll(async () => {
  masters.masters().resume(PAUSED);
  await tc.close();
  await disconnect(direct);
});

/** Runs `body` with the node PAUSED stopped, resuming it whatever happens. */
async function whilePaused<T>(body: () => Promise<T>): Promise<T> {
  masters.masters().pause(PAUSED);
  try {
    return await body();
  } finally {
    masters.masters().resume(PAUSED);
  }
}

describe("fan-out over the nodes", () => {
  it("a read: the others answer, the paused node is silent but not pending, and the next phase skips it", async () => {
    await Promise.all(direct.map((node) => node.set("fan-read", "v")));
    const fan = fanOut(nodes, { deadlineMs: DEADLINE_MS, isHung: notHung });
    const called: string[] = [];
    const replies = await whilePaused(async () => {
      const first = await fan.run("read", (node) => node.client.get("fan-read"));
      const second = await fan.run("read", async (node) => {
        called.push(node.id);
        return node.client.get("fan-read");
      });
      return { first, second };
    });
    const pausedId = nodes[PAUSED]!.id;
    expect(replies.first.map((reply) => (reply.answered ? reply.value : null))).toEqual([
      "v",
      "v",
      null,
    ]);
    expect(replies.first[PAUSED]!.latencyMs).toBeGreaterThanOrEqual(DEADLINE_MS - 1);
    expect([...fan.silentNodeIds]).toEqual([pausedId]);
    expect(fan.pendingNodeIds).toEqual([]);
    // The second phase never asked the silent node: it could only have timed out again.
    expect(called).toEqual(nodes.filter((_, index) => index !== PAUSED).map((node) => node.id));
    expect(replies.second[PAUSED]).toEqual({ nodeId: pausedId, answered: false, latencyMs: 0 });
  });

  it("a write: the paused node is pending, and runs the queued write when it resumes", async () => {
    await Promise.all(direct.map((node) => node.del("fan-write")));
    const fan = fanOut(nodes, { deadlineMs: DEADLINE_MS, isHung: notHung });
    const replies = await whilePaused(() =>
      fan.run("write", (node) => node.client.set("fan-write", "w")),
    );
    expect(replies.map((reply) => reply.answered)).toEqual([true, true, false]);
    expect([...fan.silentNodeIds]).toEqual([nodes[PAUSED]!.id]);
    expect(fan.pendingNodeIds).toEqual([nodes[PAUSED]!.id]);
    // "May still run it": resumed, the node runs the write the call gave up on.
    await vi.waitFor(async () => expect(await direct[PAUSED]!.get("fan-write")).toBe("w"), {
      timeout: 2_000,
    });
  });

  it("a node known hung is skipped from the first phase: never called, silent, not pending", async () => {
    const hungId = nodes[0]!.id;
    const fan = fanOut(nodes, { deadlineMs: DEADLINE_MS, isHung: (node) => node.id === hungId });
    const called: string[] = [];
    const replies = await fan.run("write", async (node) => {
      called.push(node.id);
      return node.client.set("fan-hung", "h");
    });
    expect(called).toEqual([nodes[1]!.id, nodes[2]!.id]);
    expect(replies[0]).toEqual({ nodeId: hungId, answered: false, latencyMs: 0 });
    expect(replies.slice(1).map((reply) => reply.answered)).toEqual([true, true]);
    expect([...fan.silentNodeIds]).toEqual([hungId]);
    expect(fan.pendingNodeIds).toEqual([]);
  });

  it("a call that fails counts as no answer", async () => {
    const fan = fanOut(nodes, { deadlineMs: DEADLINE_MS, isHung: notHung });
    const replies = await fan.run("read", (node) =>
      node.id === nodes[1]!.id ? Promise.reject(new Error("refused")) : Promise.resolve(1),
    );
    expect(replies.map((reply) => reply.answered)).toEqual([true, false, true]);
    expect([...fan.silentNodeIds]).toEqual([nodes[1]!.id]);
  });
});
