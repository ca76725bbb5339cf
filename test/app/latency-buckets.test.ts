import { describe, expect, it } from "vitest";
import { bucketWidthMs, nodePoints, percentile, quorumPoints } from "@/app/latency/latency-buckets";

describe("percentile", () => {
  it("takes the nearest rank", () => {
    const sorted = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe("bucketWidthMs", () => {
  it("gives at most about 40 buckets per window", () => {
    expect(bucketWidthMs(5 * 60_000)).toBe(10_000);
    expect(bucketWidthMs(15 * 60_000)).toBe(30_000);
    expect(bucketWidthMs(60 * 60_000)).toBe(120_000);
  });
});

describe("quorumPoints", () => {
  it("groups samples by bucket with p50, p99 and failures, in time order", () => {
    const points = quorumPoints(
      [
        { at: 10_500, latencyMs: 4, outcome: "success", source: "probe" },
        { at: 1_000, latencyMs: 1, outcome: "success", source: "probe" },
        { at: 2_000, latencyMs: 3, outcome: "failure", source: "acquire" },
        { at: 3_000, latencyMs: 2, outcome: "success", source: "probe" },
      ],
      10_000,
    );
    expect(points).toEqual([
      { at: 0, p50Ms: 2, p99Ms: 3, failures: 1 },
      { at: 10_000, p50Ms: 4, p99Ms: 4, failures: 0 },
    ]);
  });
});

describe("nodePoints", () => {
  it("puts each node's median under its id and leaves out nodes that did not answer", () => {
    const points = nodePoints(
      [
        {
          nodeId: "node-1",
          address: "a:1",
          samples: [{ at: 100, latencyMs: 2, vote: "for", source: "probe" }],
        },
        {
          nodeId: "node-2",
          address: "a:2",
          samples: [{ at: 200, latencyMs: null, vote: "against", source: "probe" }],
        },
      ],
      1_000,
    );
    expect(points).toEqual([{ at: 0, "node-1": 2 }]);
  });
});
