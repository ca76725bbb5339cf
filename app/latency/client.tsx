"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import type { LatencyResponse } from "@/lib/api";
import { useLatency } from "../_queries/latency";
import { ChartLineNodeLatency } from "./chart-line-node-latency";
import { ChartLineQuorumLatency } from "./chart-line-quorum-latency";
import { bucketWidthMs, nodePoints, quorumPoints } from "./latency-buckets";
import { LatencyStats } from "./latency-stats";

const WINDOWS = ["5m", "15m", "1h", "6h"] as const;

function useWindowParam(): [string, (windowSize: string) => void] {
  const searchParams = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const requested = searchParams.get("window");
  const windowSize = WINDOWS.find((option) => option === requested) ?? "15m";
  const setWindow = (next: string) =>
    router.replace(next === "15m" ? pathname : `${pathname}?window=${next}`, { scroll: false });
  return [windowSize, setWindow];
}

function LatencyCharts({ data }: { data: LatencyResponse }) {
  const widthMs = bucketWidthMs(data.windowMs);
  const quorum = useMemo(() => quorumPoints(data.quorum, widthMs), [data.quorum, widthMs]);
  const nodes = useMemo(() => nodePoints(data.nodes, widthMs), [data.nodes, widthMs]);

  if (data.quorum.length === 0) {
    return (
      <p className="notice notice-info">
        No latency samples in this window yet.{" "}
        {data.probeIntervalMs > 0
          ? `The probe runs every ${data.probeIntervalMs / 1_000} s; manual actions add samples too.`
          : "The scheduled probe is off (CONSOLE_PROBE_INTERVAL_MS=0): only manual actions add samples."}
      </p>
    );
  }
  return (
    <>
      <LatencyStats data={data} />
      <section className="card" aria-labelledby="quorum-latency-heading">
        <h2 id="quorum-latency-heading">Quorum latency (p50 / p99 per {widthMs / 1_000} s)</h2>
        <ChartLineQuorumLatency points={quorum} />
      </section>
      <section className="card" aria-labelledby="node-latency-heading">
        <h2 id="node-latency-heading">Per-node latency (median)</h2>
        <ChartLineNodeLatency points={nodes} nodeIds={data.nodes.map((node) => node.nodeId)} />
      </section>
    </>
  );
}

export function LatencyClient() {
  const [windowSize, setWindow] = useWindowParam();
  const { data, error } = useLatency(windowSize);
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1>Latency</h1>
        <label className="row">
          Window
          <select value={windowSize} onChange={(event) => setWindow(event.target.value)}>
            {WINDOWS.map((option) => (
              <option key={option} value={option}>
                last {option}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && <ErrorNotice error={error} title="Latency history unavailable" />}
      {!data && !error && <p className="muted">Loading latency history…</p>}
      {data && <LatencyCharts data={data} />}
    </div>
  );
}
