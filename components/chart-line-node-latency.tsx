"use client";

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock, formatLatencyMs } from "./format";
import type { NodePoint } from "./latency-buckets";

// Distinct in both themes and for the common colour-vision deficiencies (Okabe–Ito).
const NODE_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];

interface ChartLineNodeLatencyProps {
  /** Median latency per bucket in ms, one key per node id. */
  points: NodePoint[];
  nodeIds: string[];
}

/** Each node's median answer time. A gap means the node did not answer in that bucket. */
export function ChartLineNodeLatency({ points, nodeIds }: ChartLineNodeLatencyProps) {
  return (
    <figure className="chart" aria-label="Per-node latency over time">
      <LineChart responsive style={{ width: "100%", height: 280 }} data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
        <XAxis dataKey="at" type="number" scale="time" domain={["dataMin", "dataMax"]} tickFormatter={formatClock} stroke="var(--text-muted)" />
        <YAxis unit=" ms" width={70} stroke="var(--text-muted)" />
        <Tooltip
          labelFormatter={(at) => formatClock(Number(at))}
          formatter={(value) => formatLatencyMs(Number(value))}
          contentStyle={{ background: "var(--surface)", border: "1px solid var(--border)" }}
        />
        <Legend />
        {nodeIds.map((nodeId, index) => (
          <Line
            key={nodeId}
            name={nodeId}
            dataKey={nodeId}
            stroke={NODE_COLOURS[index % NODE_COLOURS.length]}
            strokeWidth={1.5}
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </figure>
  );
}
