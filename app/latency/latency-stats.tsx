import { formatLatencyMs } from "@/components/ui/format";
import type { LatencyResponse } from "@/lib/api";
import { percentile } from "./latency-buckets";

/** Headline numbers of the window: sample count, failures, overall p50/p99. */
export function LatencyStats({ data }: { data: LatencyResponse }) {
  const sorted = data.quorum.map((sample) => sample.latencyMs).sort((a, b) => a - b);
  const failures = data.quorum.filter((sample) => sample.outcome === "failure").length;
  return (
    <p className="muted">
      {data.quorum.length} operations · p50 {formatLatencyMs(percentile(sorted, 0.5))} · p99{" "}
      {formatLatencyMs(percentile(sorted, 0.99))} · {failures} failed
      {data.probeIntervalMs > 0
        ? ` · probe every ${data.probeIntervalMs / 1_000} s`
        : " · probe off"}
    </p>
  );
}
