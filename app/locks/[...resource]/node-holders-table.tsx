import { OwnerExtension } from "@/components/locks/owner-extension";
import { HolderValue } from "@/components/locks/holder-value";
import { labelsText, ownerHeadline } from "@/components/locks/lock-owner";
import { PlainTable } from "@/components/ui/plain-table";
import type { NodeHolderDetail, NodeInfo } from "@/lib/api";
import { expiresAtMs, type NodeHolder } from "@/lib/api";
import { PttlBar } from "./pttl-bar";

interface NodeHoldersTableProps {
  holders: NodeHolderDetail[];
  /** Node facts for the address column; may be missing while loading. */
  nodes: NodeInfo[] | undefined;
  /** The row's majority value: other values are flagged. */
  majorityValue: string | null;
  /** Server time of the read the PTTLs come from. */
  serverTimeMs: number;
  /** Time that fills a PTTL bar, in ms. */
  scaleMs: number;
}

function valueNote(holder: NodeHolder, majorityValue: string | null): string {
  if (!holder.reachable) return "did not answer";
  if (holder.value === null) return "";
  if (holder.value !== majorityValue) return "another value";
  return holder.holdCount !== null ? `Redisson, held ${holder.holdCount}×` : "";
}

/** The highest token recorded on the node; a lagging node shows a lower one (or none). */
function fencingCell(holder: NodeHolderDetail) {
  if (!holder.reachable) return <span className="muted">unknown</span>;
  if (holder.fencingToken === null) return <span className="muted">none</span>;
  return <span className="mono">{holder.fencingToken}</span>;
}

/** The node's owner entry for its value: headline labels and extensions; "none" when no entry matches. */
function ownerCell(holder: NodeHolderDetail) {
  if (!holder.reachable) return <span className="muted">unknown</span>;
  if (!holder.owner)
    return <span className="muted">{holder.value === null ? "" : "no entry"}</span>;
  return (
    <span title={labelsText(holder.owner.labels)}>
      {ownerHeadline(holder.owner.labels)}
      <div>
        <OwnerExtension owner={holder.owner} />
      </div>
    </span>
  );
}

/** One resource on every node: the value there, its owner entry, how long it lives, and the node's fencing counter. */
export function NodeHoldersTable({
  holders,
  nodes,
  majorityValue,
  serverTimeMs,
  scaleMs,
}: NodeHoldersTableProps) {
  return (
    <PlainTable
      label="Per-node holders"
      columns={["Node", "Value", "Owner", "Time to live", "Fencing counter"]}
    >
      {holders.map((holder) => (
        <tr key={holder.nodeId}>
          <th scope="row">
            {holder.nodeId}
            <div className="muted mono">
              {nodes?.find((node) => node.id === holder.nodeId)?.address}
            </div>
          </th>
          <td>
            {holder.reachable ? (
              <HolderValue value={holder.value} />
            ) : (
              <span className="muted">unknown</span>
            )}
            <div className="muted">{valueNote(holder, majorityValue)}</div>
          </td>
          <td>{ownerCell(holder)}</td>
          <td style={{ minWidth: "11rem" }}>
            {holder.reachable ? (
              <PttlBar
                label={`${holder.nodeId} time to live`}
                expiresAtMs={expiresAtMs(holder.pttlMs, serverTimeMs)}
                scaleMs={scaleMs}
              />
            ) : (
              <span className="muted">unknown</span>
            )}
          </td>
          <td>{fencingCell(holder)}</td>
        </tr>
      ))}
    </PlainTable>
  );
}
