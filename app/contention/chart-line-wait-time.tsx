"use client";

import { Legend, Line, Tooltip, YAxis } from "recharts";
import { TimeChartFrame } from "@/components/charts/time-chart-frame";
import { formatClock, formatDurationWords } from "@/components/ui/format";
import type { WaitSeriesPoint } from "@/lib/api";

/** Distinct hues for up to MAX_SERVICES_CHARTED + "other" services. */
const COLORS = [
  "#2f6fde",
  "#d1495b",
  "#2a9d8f",
  "#e9c46a",
  "#8d5fd3",
  "#f4a261",
  "#264653",
  "#6c757d",
  "#999",
];

interface ChartLineWaitTimeProps {
  /** Per minute and service: p50Ms and p99Ms of the waits that ended in it, in ms. */
  series: WaitSeriesPoint[];
}

/** p50 (solid) and p99 (dashed) wait time per owner service over the last hour. Animation off: live data. */
export function ChartLineWaitTime({ series }: ChartLineWaitTimeProps) {
  const services = [...new Set(series.map((point) => point.service))];
  const byMinute = new Map<number, Record<string, number>>();
  for (const point of series) {
    const row = byMinute.get(point.minute) ?? { at: point.minute };
    if (point.p50Ms !== null) row[`${point.service} p50`] = point.p50Ms;
    if (point.p99Ms !== null) row[`${point.service} p99`] = point.p99Ms;
    byMinute.set(point.minute, row);
  }
  const points = [...byMinute.values()] as Array<{ at: number }>;
  return (
    <TimeChartFrame
      label="Wait time p50 and p99 per service over the last hour"
      points={points}
      heightPx={280}
      caption="Solid: p50; dashed: p99, per minute, of the waits that ended in it (acquired, gave up, or session gone)."
    >
      <YAxis unit=" ms" width={70} stroke="var(--text-muted)" />
      <Tooltip
        labelFormatter={(at) => formatClock(Number(at))}
        formatter={(value) => formatDurationWords(Number(value))}
        contentStyle={{ background: "var(--surface)", border: "1px solid var(--border)" }}
      />
      <Legend />
      {services.flatMap((service, position) => {
        const stroke = COLORS[position % COLORS.length];
        return [
          <Line
            key={`${service}-p50`}
            name={`${service} p50`}
            dataKey={`${service} p50`}
            stroke={stroke}
            strokeWidth={2}
            dot={{ r: 2 }}
            isAnimationActive={false}
            connectNulls
          />,
          <Line
            key={`${service}-p99`}
            name={`${service} p99`}
            dataKey={`${service} p99`}
            stroke={stroke}
            strokeDasharray="4 3"
            dot={{ r: 2 }}
            isAnimationActive={false}
            connectNulls
          />,
        ];
      })}
    </TimeChartFrame>
  );
}
