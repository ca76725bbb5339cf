import Link from "next/link";
import { formatLatencyMs, formatTimestamp, shortValue } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { AuditEntry, ForceReleaseNodeResult, ForceReleaseResponse } from "@/lib/api";
import { deleteNowLabel } from "./dialog-actions";
import { answerHeadline, offersDeleteNow } from "./force-release-answer";

const OUTCOME_TEXT: Record<ForceReleaseNodeResult["outcome"], string> = {
  deleted: "deleted (explicit delete-now)",
  tombstoned: "tombstoned: held until its holder acknowledges",
  reserved: "already a tombstone: left as it was",
  absent: "no key",
  mismatch: "left alone: another value",
  kept: "left alone: another node holds a different value",
  unreachable: "did not answer",
};

/** Per-node outcome of a force-release (also of a refused one: nothing was deleted then). */
export function ForceReleaseOutcomes({
  nodes,
  label,
}: {
  nodes: ForceReleaseNodeResult[];
  label: string;
}) {
  return (
    <PlainTable label={label} columns={["Node", "Value found", "Outcome", "Latency"]}>
      {nodes.map((node) => (
        <tr key={node.nodeId}>
          <td>{node.nodeId}</td>
          <td>
            {node.value === null ? "—" : <code title={node.value}>{shortValue(node.value)}</code>}
          </td>
          <td>{OUTCOME_TEXT[node.outcome]}</td>
          <td>{formatLatencyMs(node.latencyMs)}</td>
        </tr>
      ))}
    </PlainTable>
  );
}

/**
 * The done state of the dialog: the answer in words (its `summary` from the rule, the time it
 * reserves or the overlap it risks), per node, and the audit entry; a standing tombstone's answer
 * offers the explicit delete-now beside it.
 */
export function ForceReleaseResult({
  result,
  auditEntry,
  onDeleteNow,
  deletePending,
}: {
  result: ForceReleaseResponse;
  auditEntry: AuditEntry | null;
  /** Lifts the standing tombstone (disposal "delete-now"). */
  onDeleteNow: () => void;
  deletePending: boolean;
}) {
  const changed = result.mode === "tombstoned" || result.mode === "deleted";
  return (
    <div className="stack">
      <p role="status" className={changed ? "notice notice-ok" : "notice notice-warn"}>
        {answerHeadline(result)}
      </p>
      <p aria-label="What the console did">{result.summary}</p>
      {offersDeleteNow(result) && (
        <section className="stack" aria-label="Delete now">
          <p>
            Only the explicit delete-now lifts it: the holder may still act, and the next holder
            with it.
          </p>
          <p>
            <button type="button" className="danger" disabled={deletePending} onClick={onDeleteNow}>
              {deleteNowLabel(result.reservedUntil)}
            </button>
          </p>
        </section>
      )}
      <ForceReleaseOutcomes nodes={result.nodes} label="Force-release result" />
      <div aria-label="Audit entry">
        <strong>Audit entry</strong>{" "}
        {auditEntry ? (
          <span>
            {formatTimestamp(auditEntry.at)} · {auditEntry.actor} · {auditEntry.outcome} · reason “
            {auditEntry.reason}” · stored on {auditEntry.nodes.length} nodes
          </span>
        ) : (
          <span className="muted">recorded as {result.auditId}</span>
        )}{" "}
        <Link href="/audit">Open the audit trail</Link>
      </div>
    </div>
  );
}
