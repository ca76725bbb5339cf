"use client";

import type { ReactNode } from "react";
import { CartesianGrid, ComposedChart, XAxis } from "recharts";
import { formatClock } from "@/components/ui/format";

interface TimeChartFrameProps<Point> {
  /** Accessible name of the figure. */
  label: string;
  /** One point per instant; `at` is epoch ms. */
  points: Point[];
  /** Height of the plot, in px. */
  heightPx: number;
  /** A fixed window (epoch ms), drawn whole, points outside it clipped; else the data's span. */
  range?: { fromMs: number; toMs: number };
  /** Where the time axis has ticks (epoch ms); without it, where recharts puts them. */
  ticks?: number[];
  /** The Y axis, tooltip, legend and series, in that order. */
  children: ReactNode;
  /** Below the plot: what the series mean. */
  caption?: ReactNode;
}

/** A figure with a time X axis (clock labels) and a grid: the frame of every chart over time. */
export function TimeChartFrame<Point extends { at: number }>({
  label,
  points,
  heightPx,
  range,
  ticks,
  children,
  caption,
}: TimeChartFrameProps<Point>) {
  return (
    <figure className="chart" aria-label={label}>
      <ComposedChart
        responsive
        style={{ width: "100%", height: heightPx }}
        data={points}
        margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
      >
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
        <XAxis
          dataKey="at"
          type="number"
          scale="time"
          domain={range ? [range.fromMs, range.toMs] : ["dataMin", "dataMax"]}
          ticks={ticks}
          allowDataOverflow={range !== undefined}
          tickFormatter={formatClock}
          stroke="var(--text-muted)"
        />
        {children}
      </ComposedChart>
      {caption}
    </figure>
  );
}
