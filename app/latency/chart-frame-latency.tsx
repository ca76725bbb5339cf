"use client";

import type { ReactNode } from "react";
import { CartesianGrid, Legend, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock, formatLatencyMs } from "@/components/ui/format";

interface ChartFrameLatencyProps<Point> {
  /** Accessible name of the figure. */
  label: string;
  /** One point per time bucket; `at` is epoch ms, series values are in ms. */
  points: Point[];
  /** The `<Line>` series. */
  children: ReactNode;
}

/** The axes, grid, tooltip and legend every latency-over-time chart shares. */
export function ChartFrameLatency<Point extends { at: number }>({
  label,
  points,
  children,
}: ChartFrameLatencyProps<Point>) {
  return (
    <figure className="chart" aria-label={label}>
      <LineChart
        responsive
        style={{ width: "100%", height: 280 }}
        data={points}
        margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
      >
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
        <XAxis
          dataKey="at"
          type="number"
          scale="time"
          domain={["dataMin", "dataMax"]}
          tickFormatter={formatClock}
          stroke="var(--text-muted)"
        />
        <YAxis unit=" ms" width={70} stroke="var(--text-muted)" />
        <Tooltip
          labelFormatter={(at) => formatClock(Number(at))}
          formatter={(value) => formatLatencyMs(Number(value))}
          contentStyle={{ background: "var(--surface)", border: "1px solid var(--border)" }}
        />
        <Legend />
        {children}
      </LineChart>
    </figure>
  );
}
