import Link from "next/link";
import { formatLatencyMs, formatTimestamp, shortValue } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { ForceReleaseNodeResult, ForceReleaseResponse } from "@/lib/api/actions";
import type { AuditEntry } from "@/lib/api/audit";

const OUTCOME_TEXT: Record<ForceReleaseNodeResult["outcome"], string> = {
  deleted: "deleted",
  tombstoned: "tombstoned: held until its holder acknowledges",
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

/** The done state of the dialog: what was deleted where, and the audit entry that records it. */
export function ForceReleaseResult({
  result,
  auditEntry,
}: {
  result: ForceReleaseResponse;
  auditEntry: AuditEntry | null;
}) {
  return (
    <div className="stack">
      <p role="status" className="notice notice-ok">
        Force-released <code>{result.resource}</code>:{" "}
        {result.mode === "tombstoned"
          ? `tombstoned on ${result.tombstonedCount} of ${result.nodes.length} nodes: nobody gets it before its holder has stopped or its validity has ended.`
          : `deleted on ${result.deletedCount} of ${result.nodes.length} nodes.`}
      </p>
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
