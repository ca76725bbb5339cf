"use client";

import { useEffect, useState } from "react";
import { Area, ReferenceLine, YAxis } from "recharts";
import { TimeChartFrame } from "@/components/charts/time-chart-frame";
import { formatClock } from "@/components/ui/format";
import type { Transition } from "@/lib/api";
import { ownerHeadline } from "./owner-text";
import { expiryWords } from "./transition-detail";

const WINDOW_MS = 60 * 60_000;
/** A hold is drawn at least this wide, so a hold of seconds still shows in an hour. */
const MIN_BAND_MS = WINDOW_MS / 300;
const TICK_MS = 10 * 60_000;

type Ending = "held" | "released" | "expired" | "force-released" | "evicted";

export interface HoldBand {
  value: string;
  holder: string;
  startMs: number;
  endMs: number;
  ending: Ending;
  /** An expiry's cause in words ("Why: the holder's session was unresponsive…"); null otherwise. */
  cause: string | null;
}

const SERIES = ["held", "released", "expired", "force-released", "evicted", "gap"] as const;

const ENDING_COLOUR: Record<Ending, string> = {
  held: "var(--info)",
  released: "var(--ok)",
  expired: "var(--danger)",
  "force-released": "var(--warn)",
  evicted: "var(--danger)",
};

/** Holds from a lock's transitions (newest first): each acquisition paired with how it ended. */
export function holdBands(transitions: readonly Transition[], nowMs: number): HoldBand[] {
  const bands: HoldBand[] = [];
  const open = new Map<string, HoldBand>();
  for (const transition of [...transitions].reverse()) {
    // "service / host / pid", as every page names a holder.
    const holder = transition.owner ? ownerHeadline(transition.owner.labels) : "unlabelled";
    if (transition.kind === "acquired" && transition.value) {
      const band: HoldBand = {
        value: transition.value,
        holder,
        startMs: transition.owner?.acquiredAt ?? transition.at,
        endMs: nowMs,
        ending: "held",
        cause: null,
      };
      open.set(transition.value, band);
      bands.push(band);
    } else if (
      (transition.kind === "released" ||
        transition.kind === "expired" ||
        transition.kind === "force-released" ||
        // A hold lost to evictions (heldMs set); a per-node eviction beside a hold ends nothing.
        (transition.kind === "evicted" && transition.heldMs !== null)) &&
      transition.value
    ) {
      let band = open.get(transition.value);
      if (!band) {
        // Acquired before history began: its start comes from how long it was held.
        band = {
          value: transition.value,
          holder,
          startMs: transition.at - (transition.heldMs ?? 0),
          endMs: nowMs,
          ending: "held",
          cause: null,
        };
        bands.push(band);
      }
      open.delete(transition.value);
      band.ending = transition.kind;
      if (transition.kind === "expired") band.cause = expiryWords(transition);
      band.endMs = transition.heldMs !== null ? band.startMs + transition.heldMs : transition.at;
    }
  }
  return bands;
}

/** Every 10 minutes on the clock within the window. */
function ticksBetween(fromMs: number, toMs: number): number[] {
  const ticks: number[] = [];
  for (let at = Math.ceil(fromMs / TICK_MS) * TICK_MS; at <= toMs; at += TICK_MS) ticks.push(at);
  return ticks;
}

function useNow(intervalMs: number): number {
  const [nowMs, setNowMs] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNowMs(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return nowMs;
}

/** The last hour's expiries while held, newest first (three at most), each with its cause. */
function ExpiryCauses({ bands }: { bands: readonly HoldBand[] }) {
  const expired = bands.filter((band) => band.ending === "expired").reverse();
  if (expired.length === 0) return null;
  return (
    <ul data-testid="expiry-causes">
      {expired.slice(0, 3).map((band) => (
        <li key={band.value}>
          Expired while held at {formatClock(band.endMs)} ({band.holder}). {band.cause}
        </li>
      ))}
    </ul>
  );
}

/** Who held the lock over the last hour: one band per hold, coloured by how it ended. */
export function HoldTimeline({ transitions }: { transitions: readonly Transition[] }) {
  const nowMs = useNow(2_000);
  const fromMs = nowMs - WINDOW_MS;
  const bands = holdBands(transitions, nowMs).filter((band) => band.endMs >= fromMs);
  const evictions = transitions.filter((t) => t.kind === "evicted" && t.at >= fromMs);
  const gaps = transitions.filter((t) => t.kind === "gap" && t.at >= fromMs && t.since !== null);
  const expired = bands.filter((band) => band.ending === "expired").length;
  const summary =
    `${bands.length} hold(s) in the last hour` +
    (expired > 0 ? `, ${expired} expired while held` : "") +
    (evictions.length > 0 ? `, ${evictions.length} eviction(s)` : "");
  // Step areas, one series per way a hold ended (and gaps): 1 while such a band covers the instant.
  const spans: Array<{ series: Ending | "gap"; x1: number; x2: number }> = [
    ...bands.map((band) => {
      // Within the window, and wide enough to see.
      const x2 = Math.min(nowMs, Math.max(band.endMs, band.startMs + MIN_BAND_MS));
      return {
        series: band.ending,
        x1: Math.max(fromMs, Math.min(band.startMs, x2 - MIN_BAND_MS)),
        x2,
      };
    }),
    ...gaps.map((gap) => ({
      series: "gap" as const,
      x1: Math.max(fromMs, gap.since!),
      x2: Math.min(nowMs, Math.max(gap.at, gap.since! + MIN_BAND_MS)),
    })),
  ];
  const instants = [...new Set([fromMs, nowMs, ...spans.flatMap((span) => [span.x1, span.x2])])]
    .filter((at) => at >= fromMs && at <= nowMs)
    .sort((a, b) => a - b);
  const points = instants.map((at) => {
    const point: { at: number; [series: string]: number } = { at };
    for (const series of SERIES)
      point[series] = spans.some((span) => span.series === series && span.x1 <= at && at < span.x2)
        ? series === "gap"
          ? 1
          : 0.8
        : 0;
    return point;
  });
  return (
    <TimeChartFrame
      label="Who held this lock over the last hour"
      points={points}
      heightPx={140}
      range={{ fromMs, toMs: nowMs }}
      ticks={ticksBetween(fromMs, nowMs)}
      caption={
        <figcaption className="muted">
          {summary}. Bands: <span style={{ color: ENDING_COLOUR.held }}>held now</span>,{" "}
          <span style={{ color: ENDING_COLOUR.released }}>released</span>,{" "}
          <span style={{ color: ENDING_COLOUR.expired }}>expired while held</span>,{" "}
          <span style={{ color: ENDING_COLOUR["force-released"] }}>force-released</span>,{" "}
          <span style={{ color: ENDING_COLOUR.evicted }}>lost to evictions</span>; dashed lines:
          evictions; grey: gaps.
          <ExpiryCauses bands={bands} />
        </figcaption>
      }
    >
      <YAxis type="number" domain={[0, 1]} hide />
      {SERIES.map((series) => (
        <Area
          key={series}
          dataKey={series}
          type="stepAfter"
          stroke="none"
          fill={series === "gap" ? "var(--text-muted)" : ENDING_COLOUR[series]}
          fillOpacity={series === "gap" ? 0.15 : 0.7}
          isAnimationActive={false}
          dot={false}
          activeDot={false}
        />
      ))}
      {evictions.map((eviction) => (
        <ReferenceLine
          key={`evicted-${eviction.id}`}
          x={eviction.at}
          stroke="var(--danger)"
          strokeDasharray="4 2"
        />
      ))}
    </TimeChartFrame>
  );
}
