/**
 * The library skips building spans while no OpenTelemetry SDK is registered; an SDK registered after
 * the Redlock was made is picked up at the next operation (the check runs per call, not once).
 */
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import Redlock from "@redlock-console/redlock";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connect, disconnect, sharedUrls } from "../masters";
import { lockClients } from "../lock-clients";

let clients: Redis[];
let redlock: Redlock;

beforeAll(async () => {
  trace.disable();
  clients = connect(sharedUrls());
  redlock = new Redlock(await lockClients(clients), { retryCount: 0 });
});
afterAll(async () => {
  trace.disable();
  await disconnect(clients);
});

describe("OpenTelemetry registered late", () => {
  it("locks without an SDK, and traces once one is registered", async () => {
    const before = await redlock.acquire(["telemetry-late:before"], 5_000);
    await redlock.release(before);

    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    const after = await redlock.acquire(["telemetry-late:after"], 5_000);
    await redlock.release(after);
    await vi.waitFor(() =>
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([
        "redlock.acquire",
        "redlock.release",
      ]),
    );
    expect(exporter.getFinishedSpans()[0]!.attributes["redlock.resources"]).toEqual([
      "telemetry-late:after",
    ]);
  });
});
