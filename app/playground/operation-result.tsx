import { ErrorNotice } from "@/components/ui/error-notice";
import { formatLatencyMs } from "@/components/ui/format";
import type { OperationRecord } from "./use-playground";
import { VoteTable } from "./vote-table";

/** What the last action did: its outcome in words, its total latency, and each node's vote. */
export function OperationResult({ record }: { record: OperationRecord }) {
  return (
    <section className="card stack" aria-labelledby="last-operation-heading" aria-live="polite">
      <h2 id="last-operation-heading" style={{ margin: 0 }}>
        Last operation: {record.operation}
      </h2>
      {record.error ? (
        <ErrorNotice error={record.error} title={`${record.operation} failed`} />
      ) : (
        <p role="status" className="notice notice-ok">
          {record.summary}
          {record.latencyMs !== null && ` in ${formatLatencyMs(record.latencyMs)}`}
        </p>
      )}
      <VoteTable attempts={record.attempts} />
    </section>
  );
}
