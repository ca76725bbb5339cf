import { formatTimestamp } from "@/components/ui/format";
import type { HistoryHorizon } from "@/lib/api";

const BASIS_TEXT: Record<HistoryHorizon["basis"], string> = {
  "console-start": "the console started",
  "index-listed": "every node was first listed",
  retention: "older transitions fell out of the kept history",
  store: "the oldest transition in the state store",
  sampled: "a node is polled",
};

/** From when the history is whole: before it, "no transition" means "not seen", not "nothing happened". */
export function HistoryHorizonNotice({ horizon }: { horizon: HistoryHorizon }) {
  return (
    <>
      {horizon.basis === "sampled" ? (
        <p className="notice notice-warn" data-testid="history-horizon">
          {horizon.sampleNote}
          {horizon.sampledSince !== null &&
            ` Sampled since ${formatTimestamp(horizon.sampledSince)}; ${horizon.retained.toLocaleString()} of at most ${horizon.capacity.toLocaleString()} transitions kept.`}{" "}
          The fix: turn on keyspace events on that node (its card on the Nodes panel).
        </p>
      ) : horizon.completeSince === null ? (
        <p className="notice notice-info" data-testid="history-horizon">
          History starts once every node has been listed: nothing is known yet.
        </p>
      ) : (
        <p className="muted" data-testid="history-horizon">
          History is complete since {formatTimestamp(horizon.completeSince)} (when{" "}
          {BASIS_TEXT[horizon.basis]}), gaps marked; {horizon.retained.toLocaleString()} of at most{" "}
          {horizon.capacity.toLocaleString()} transitions kept
          {horizon.durable ? ", also in the state store" : " in memory"}. Nothing before it is
          known.
        </p>
      )}
      {horizon.gapOpen && horizon.completeSince !== null && (
        <p className="notice notice-warn">
          A node is being listed again: changes now are not all seen, and will show as a gap.
        </p>
      )}
    </>
  );
}
