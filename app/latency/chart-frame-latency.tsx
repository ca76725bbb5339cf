"use client";

import type { ReactNode } from "react";
import { Legend, Tooltip, YAxis } from "recharts";
import { TimeChartFrame } from "@/components/charts/time-chart-frame";
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
    <TimeChartFrame label={label} points={points} heightPx={280}>
      <YAxis unit=" ms" width={70} stroke="var(--text-muted)" />
      <Tooltip
        labelFormatter={(at) => formatClock(Number(at))}
        formatter={(value) => formatLatencyMs(Number(value))}
        contentStyle={{ background: "var(--surface)", border: "1px solid var(--border)" }}
      />
      <Legend />
      {children}
    </TimeChartFrame>
  );
}
