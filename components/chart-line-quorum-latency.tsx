"use client";

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock, formatLatencyMs } from "./format";
import type { QuorumPoint } from "./latency-buckets";

interface ChartLineQuorumLatencyProps {
  /** Bucketed quorum latency; p50Ms and p99Ms in milliseconds. */
  points: QuorumPoint[];
}

/** Time until a majority answered, p50 and p99 per bucket. Animation off: the data is live. */
export function ChartLineQuorumLatency({ points }: ChartLineQuorumLatencyProps) {
  return (
    <figure className="chart" aria-label="Quorum latency p50 and p99 over time">
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
        <Line name="p50" dataKey="p50Ms" stroke="var(--accent)" strokeWidth={2} dot={{ r: 2 }} isAnimationActive={false} />
        <Line name="p99" dataKey="p99Ms" stroke="var(--danger)" strokeWidth={2} dot={{ r: 2 }} isAnimationActive={false} />
      </LineChart>
    </figure>
  );
}
