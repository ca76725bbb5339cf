import { SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import Redlock, { ExecutionError } from "@redlock-console/redlock";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { connect, disconnect, sharedUrls } from "../masters";
import { lockClients } from "../lock-clients";

const exporter = new InMemorySpanExporter();
let clients: Redis[];
let redlock: Redlock;

beforeAll(async () => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  clients = connect(sharedUrls());
  redlock = new Redlock(await lockClients(clients), { retryCount: 1, retryDelay: 10 });
});
afterAll(async () => {
  trace.disable();
  await disconnect(clients);
});
beforeEach(() => exporter.reset());

/** Spans end once every node has answered, a moment after the call returns. */
const spansNamed = async (name: string, count: number): Promise<ReadableSpan[]> =>
  vi.waitFor(() => {
    const spans = exporter.getFinishedSpans().filter((span) => span.name === name);
    expect(spans).toHaveLength(count);
    return spans;
  });

describe("OpenTelemetry spans", () => {
  it("traces acquire, extend and release with attributes and one vote event per node", async () => {
    const resource = `otel:${Date.now()}`;
    const lock = await redlock.acquire([resource], 2_000);
    const extended = await lock.extend(3_000);
    await extended.release();

    const [acquire] = await spansNamed("redlock.acquire", 1);
    expect(acquire!.attributes).toMatchObject({
      "redlock.operation": "acquire",
      "redlock.resources": [resource],
      "redlock.nodes": 5,
      "redlock.quorum": 3,
      "redlock.ttl_ms": 2_000,
      "redlock.attempts": 1,
      "redlock.outcome": "success",
    });
    const votes = acquire!.events.filter((event) => event.name === "redlock.node.vote");
    expect(votes.map((event) => event.attributes?.["redlock.node.index"]).sort()).toEqual([
      0, 1, 2, 3, 4,
    ]);
    for (const vote of votes) {
      expect(vote.attributes?.["redlock.vote"]).toBe("for");
      expect(vote.attributes?.["redlock.latency_ms"]).toBeGreaterThanOrEqual(0);
    }

    const [extend] = await spansNamed("redlock.extend", 1);
    expect(extend!.attributes["redlock.ttl_ms"]).toBe(3_000);
    const [release] = await spansNamed("redlock.release", 1);
    expect(release!.attributes["redlock.released_count"]).toBe(5);
  });

  it("marks a failed acquire as an error, with each attempt's votes against and why", async () => {
    const resource = `otel-held:${Date.now()}`;
    const holder = await redlock.acquire([resource], 5_000);
    await expect(redlock.acquire([resource], 1_000)).rejects.toBeInstanceOf(ExecutionError);
    await holder.release();

    const [failed] = await spansNamed("redlock.acquire", 2).then((spans) =>
      spans.filter((span) => span.attributes["redlock.outcome"] === "failure"),
    );
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.attributes["redlock.attempts"]).toBe(2);
    const votes = failed!.events.filter((event) => event.name === "redlock.node.vote");
    expect(votes).toHaveLength(10);
    expect(votes.every((vote) => vote.attributes?.["redlock.vote"] === "against")).toBe(true);
    expect(String(votes[0]!.attributes?.["redlock.error"])).toMatch(/^ResourceLockedError/);
    expect(failed!.events.some((event) => event.name === "exception")).toBe(true);
  });
});
