"use client";

import { Line } from "recharts";
import { ChartFrameLatency } from "./chart-frame-latency";
import type { QuorumPoint } from "./latency-buckets";

interface ChartLineQuorumLatencyProps {
  /** Bucketed quorum latency; p50Ms and p99Ms in milliseconds. */
  points: QuorumPoint[];
}

/** Time until a majority answered, p50 and p99 per bucket. Animation off: the data is live. */
export function ChartLineQuorumLatency({ points }: ChartLineQuorumLatencyProps) {
  return (
    <ChartFrameLatency label="Quorum latency p50 and p99 over time" points={points}>
      <Line
        name="p50"
        dataKey="p50Ms"
        stroke="var(--accent)"
        strokeWidth={2}
        dot={{ r: 2 }}
        isAnimationActive={false}
      />
      <Line
        name="p99"
        dataKey="p99Ms"
        stroke="var(--danger)"
        strokeWidth={2}
        dot={{ r: 2 }}
        isAnimationActive={false}
      />
    </ChartFrameLatency>
  );
}
