"use client";

import { Line } from "recharts";
import { ChartFrameLatency } from "./chart-frame-latency";
import type { NodePoint } from "./latency-buckets";

// Distinct in both themes and for the common colour-vision deficiencies (Okabe–Ito).
const NODE_COLOURS = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#CC79A7",
  "#56B4E9",
  "#D55E00",
  "#F0E442",
  "#999999",
];

interface ChartLineNodeLatencyProps {
  /** Median latency per bucket in ms, one key per node id. */
  points: NodePoint[];
  nodeIds: string[];
}

/** Each node's median answer time. A gap means the node did not answer in that bucket. */
export function ChartLineNodeLatency({ points, nodeIds }: ChartLineNodeLatencyProps) {
  return (
    <ChartFrameLatency label="Per-node latency over time" points={points}>
      {nodeIds.map((nodeId, index) => (
        <Line
          key={nodeId}
          name={nodeId}
          dataKey={nodeId}
          stroke={NODE_COLOURS[index % NODE_COLOURS.length]}
          strokeWidth={1.5}
          // A lone bucket has no line to draw: show its points instead.
          dot={points.length < 2 ? { r: 3 } : false}
          isAnimationActive={false}
        />
      ))}
    </ChartFrameLatency>
  );
}
