/**
 * Who blocks whom, on real masters with real processes: each contender is a child process running
 * the library (fixtures/contender.ts) with a holder session, and the console builds the wait-for
 * graph from its live index alone (keyspace events on). The chain and cycle shapes are
 * `GET /api/contention`'s, as the outside check reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as contention from "@/app/api/contention/route";
import * as revoke from "@/app/api/locks/revoke/route";
import type { ContentionResponse } from "@/lib/api";
import { sleep, usePrivateMasters } from "../masters";
import { useContenders } from "./fixtures/fork-contender";
import { call, startTestConsole, type TestConsole } from "./helpers";

const masters = usePrivateMasters(3);
let tc: TestConsole;
const contender = useContenders(() => masters.masters().urls);

/** Polls the route until `check` passes; returns the body and how long it took. */
async function graphWhen(
  check: (graph: ContentionResponse) => boolean,
  timeoutMs = 3_000,
): Promise<{ graph: ContentionResponse; afterMs: number }> {
  const startedAt = performance.now();
  for (;;) {
    const { status, body } = await call<ContentionResponse>(contention.GET, "/api/contention");
    expect(status).toBe(200);
    if (check(body)) return { graph: body, afterMs: performance.now() - startedAt };
    if (performance.now() - startedAt > timeoutMs)
      throw new Error(`not as expected after ${timeoutMs} ms: ${JSON.stringify(body)}`);
    await sleep(10);
  }
}

beforeAll(async () => {
  tc = startTestConsole(masters.masters().urls, { enableKeyspaceEvents: true });
  await tc.ready();
  await tc.sync();
});

afterAll(async () => {
  await tc.close();
});

describe("wait chains", () => {
  it("shows a chain of three sessions in order: the last waiter, the one in the middle, the root blocker", async () => {
    const [a, b, c] = await Promise.all([
      contender("alpha"),
      contender("beta"),
      contender("gamma"),
    ]);
    const first = `${tc.prefix}orders:42`;
    const second = `${tc.prefix}invoices:7`;
    await a.hold(first);
    await b.hold(second);
    void b.wait(first).catch(() => undefined);
    void c.wait(second).catch(() => undefined);
    const { graph } = await graphWhen((body) =>
      body.chains.some((chain) => chain.sessions.length === 3),
    );
    const chain = graph.chains[0]!;
    expect(chain.sessions).toEqual([c.sessionId, b.sessionId, a.sessionId]);
    expect(chain.resources).toEqual([second, first]);
    expect(chain.endsInCycle).toBe(false);
    expect(graph.cycles).toEqual([]);
    expect(graph.participants[a.sessionId]!.labels.service).toBe("alpha");
    expect(graph.participants[b.sessionId]!.holds.map((hold) => hold.resource)).toEqual([second]);
    expect(graph.participants[b.sessionId]!.waitsFor.map((wait) => wait.resource)).toEqual([first]);
  });
});

describe("deadlock cycles", () => {
  it("detects a two-lock deadlock between two processes and shows both members and both locks", async () => {
    const [p, q] = await Promise.all([contender("payments"), contender("stock")]);
    const x = `${tc.prefix}x`;
    const y = `${tc.prefix}y`;
    await Promise.all([p.hold(x), q.hold(y)]);
    void p.wait(y).catch(() => undefined);
    // The cycle forms once q's entry is written (after its first failed attempt): measured from
    // before q is even asked, so the figure is an upper bound of the detection latency.
    void q.wait(x).catch(() => undefined);
    const ours = (body: ContentionResponse) =>
      body.cycles.find((found) => found.sessions.includes(p.sessionId));
    // Detection comes from the wait entries the contenders write; without it the cycle never
    // shows, so a generous deadline is the whole check (how fast is a latency, issue 48).
    const { graph, afterMs } = await graphWhen((body) => ours(body) !== undefined, 20_000);
    const cycle = ours(graph);
    expect(new Set(cycle!.sessions)).toEqual(new Set([p.sessionId, q.sessionId]));
    expect(new Set(cycle!.resources)).toEqual(new Set([x, y]));
    // sessions[i] waits for resources[i], held by the next session.
    const waiterOfX = cycle!.sessions[cycle!.resources.indexOf(x)];
    expect(waiterOfX).toBe(q.sessionId);
    expect(graph.cycleEpisodesTotal).toBeGreaterThanOrEqual(1);
    console.info(`deadlock detected ${Math.round(afterMs)} ms after the second wait was asked for`);
  });

  it("revoking one member from the cycle breaks it: that member's wait is cancelled, it lets go, the other acquires", async () => {
    const [p, q] = await Promise.all([contender("payments"), contender("stock")]);
    const x = `${tc.prefix}rx`;
    const y = `${tc.prefix}ry`;
    const [valueOfX] = await Promise.all([p.hold(x), q.hold(y)]);
    const pWaits = p.wait(y);
    const qWaits = q.wait(x);
    for (const waiting of [pWaits, qWaits]) waiting.catch(() => undefined); // if the test fails first
    const { graph } = await graphWhen((body) =>
      body.cycles.some((cycle) => cycle.sessions.includes(p.sessionId)),
    );
    const hold = graph.participants[p.sessionId]!.holds.find((held) => held.resource === x)!;
    expect(hold.value).toBe(valueOfX);
    const asked = await call(revoke.POST, "/api/locks/revoke", {
      body: { resource: x, expectedValue: hold.value, reason: "break the deadlock" },
    });
    expect(asked.status).toBe(202);
    expect((await pWaits).type).toBe("gave-up");
    expect((await qWaits).type).toBe("acquired");
    await graphWhen((body) => !body.cycles.some((cycle) => cycle.sessions.includes(p.sessionId)));
  });
});
