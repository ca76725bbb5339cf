import { ElapsedSince } from "@/components/locks/held-for";
import { OwnerLabels } from "@/components/locks/lock-owner";
import { formatTimestamp } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { Waiter } from "@/lib/api";

/** Contenders waiting for a resource, longest waiting first. */
export function WaitersTable({ waiters, nodeCount }: { waiters: Waiter[]; nodeCount: number }) {
  return (
    <PlainTable
      label="Waiters"
      columns={["Waiter", "Labels", "Waiting for", "Gives up at", "Nodes"]}
    >
      {waiters.map((waiter) => (
        <tr key={waiter.id}>
          <th scope="row" className="mono">
            {waiter.id}
          </th>
          <td>
            <OwnerLabels labels={waiter.labels} />
          </td>
          <td>
            <ElapsedSince sinceMs={waiter.since} label="waiting for" />
            <div className="muted">since {formatTimestamp(waiter.since)}</div>
          </td>
          <td>{formatTimestamp(waiter.expiresAt)}</td>
          <td>
            {waiter.nodeCount}/{nodeCount}
          </td>
        </tr>
      ))}
    </PlainTable>
  );
}
