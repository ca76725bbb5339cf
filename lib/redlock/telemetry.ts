import { createRequire } from "node:module";
import type * as OtelApi from "@opentelemetry/api";
import { isExecutionError } from "./errors";
import { quorumSize } from "./quorum";
import type { ExecutionStats, Operation } from "./types";

type Api = typeof OtelApi;

const TRACER_NAME = "@redlock-console/redlock";

let loadedApi: Api | null | undefined;

/**
 * @opentelemetry/api when the application has installed it (an optional peer dependency), else
 * null. Required lazily and once, so an application without it loads nothing and pays nothing.
 */
function otelApi(): Api | null {
  if (loadedApi === undefined) {
    try {
      loadedApi = createRequire(import.meta.url)("@opentelemetry/api") as Api;
    } catch {
      loadedApi = null;
    }
  }
  return loadedApi;
}

/** The library's tracer, or undefined when OpenTelemetry is not installed. */
export function loadTracer(): OtelApi.Tracer | undefined {
  return otelApi()?.trace.getTracer(TRACER_NAME);
}

/** One acquire, extend or release as a span; ended once every node's vote is known. */
export interface OperationSpan {
  /** `attributes` may be known only once every node answered (e.g. release's final counts). */
  succeed(
    attempts: ReadonlyArray<Promise<ExecutionStats>>,
    attributes?: OtelApi.Attributes | Promise<OtelApi.Attributes>,
  ): void;
  fail(error: unknown): void;
}

export function startOperationSpan(
  tracer: OtelApi.Tracer,
  operation: Operation,
  resources: readonly string[],
  nodeCount: number,
  ttlMs?: number,
): OperationSpan | undefined {
  const api = otelApi()!;
  // No SDK registered (the global provider is the API's proxy with no delegate): skip building the
  // attributes of a span nobody records. Checked per call: an SDK may register after this tracer.
  const provider = api.trace.getTracerProvider();
  if (
    provider instanceof api.ProxyTracerProvider &&
    typeof provider.getDelegateTracer === "function" &&
    !provider.getDelegateTracer(TRACER_NAME)
  )
    return undefined;
  const span = tracer.startSpan(`redlock.${operation}`, {
    kind: api.SpanKind.CLIENT,
    attributes: {
      "redlock.operation": operation,
      "redlock.resources": [...resources],
      "redlock.nodes": nodeCount,
      "redlock.quorum": quorumSize(nodeCount),
      ...(ttlMs === undefined ? {} : { "redlock.ttl_ms": ttlMs }),
    },
  });
  // No SDK registered: a non-recording span, nothing more to build.
  if (!span.isRecording()) return undefined;

  // The span covers the call (it ends at the decision); the votes of nodes that answer after the
  // decision are added as events once every node has answered or timed out.
  const finish = (
    outcome: "success" | "failure",
    attempts: ReadonlyArray<Promise<ExecutionStats>>,
    lateAttributes: OtelApi.Attributes | Promise<OtelApi.Attributes> = {},
  ) => {
    const endTime = Date.now();
    span.setAttributes({ "redlock.outcome": outcome, "redlock.attempts": attempts.length });
    void Promise.all([
      Promise.allSettled(attempts),
      Promise.resolve(lateAttributes).catch(() => ({})),
    ]).then(([settled, attributes]) => {
      span.setAttributes(attributes);
      settled.forEach((result, attempt) => {
        if (result.status !== "fulfilled") return;
        for (const vote of result.value.nodes) {
          span.addEvent("redlock.node.vote", {
            "redlock.attempt": attempt + 1,
            "redlock.node.index": vote.index,
            "redlock.node.address": vote.address,
            "redlock.vote": vote.vote,
            "redlock.latency_ms": vote.latencyMs,
            ...(vote.error ? { "redlock.error": `${vote.error.name}: ${vote.error.message}` } : {}),
          });
        }
      });
      span.end(endTime);
    });
  };

  return {
    succeed: (attempts, attributes) => finish("success", attempts, attributes),
    fail: (error) => {
      const failure = error instanceof Error ? error : new Error(String(error));
      span.recordException(failure);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure.message });
      finish("failure", isExecutionError(error) ? error.attempts : []);
    },
  };
}
