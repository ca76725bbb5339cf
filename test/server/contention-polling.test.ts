/**
 * Without keyspace events the console polls, and the wait-for graph says how late a cycle may show:
 * a two-process deadlock on polled nodes is found within the `detectionBoundMs` the API announces
 * (the polled node's data age, plus the 1 s between passes, plus a tick), never sooner than a pass.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ContentionResponse } from "@/lib/api";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { forkContender, type Contender } from "./fixtures/fork-contender";
import { startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(3);
let tc: TestConsole;
const started: Contender[] = [];

beforeAll(async () => {
  const nodes = connect(masters.masters().urls);
  await Promise.all(nodes.map((node) => node.config("SET", "notify-keyspace-events", "")));
  await disconnect(nodes);
  tc = startTestConsole(masters.masters().urls, { scanBudgetPerS: 10_000 });
  await tc.ready();
  await tc.sync();
});

afterEach(() => {
  for (const forked of started.splice(0)) forked.kill();
});

afterAll(async () => {
  await tc.close();
});

describe("a polled console", () => {
  it("finds a two-process deadlock within the detection bound it announces", async () => {
    expect(tc.ctx.index.nodeStatus(0).mode).toBe("polling");
    const [p, q] = await Promise.all(
      ["payments", "stock"].map((service) =>
        forkContender({ urls: masters.masters().urls, service, retryCount: 400, retryDelayMs: 50 }),
      ),
    );
    started.push(p!, q!);
    const x = `${tc.prefix}x`;
    const y = `${tc.prefix}y`;
    await Promise.all([p!.hold(x), q!.hold(y)]);
    void p!.wait(y).catch(() => undefined);
    void q!.wait(x).catch(() => undefined);
    const askedAt = performance.now();
    let graph: ContentionResponse;
    for (;;) {
      graph = tc.ctx.contention.graph();
      if (graph.cycles.length > 0) break;
      expect(performance.now() - askedAt).toBeLessThan(10_000);
      await sleep(20);
    }
    const foundAfterMs = performance.now() - askedAt;
    // Polling mode announces more than a second; the cycle shows within what it announced.
    expect(graph.detectionBoundMs).toBeGreaterThan(1_000);
    expect(foundAfterMs).toBeLessThanOrEqual(graph.detectionBoundMs + 200);
    expect(new Set(graph.cycles[0]!.sessions)).toEqual(new Set([p!.sessionId, q!.sessionId]));
    console.info(
      `polled: cycle found ${Math.round(foundAfterMs)} ms after both waits were asked for; bound announced ${graph.detectionBoundMs} ms`,
    );
  });
});
