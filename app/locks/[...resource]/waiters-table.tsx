import { ElapsedSince } from "@/components/locks/held-for";
import { OwnerLabels } from "@/components/locks/lock-owner";
import { formatTimestamp } from "@/components/ui/format";
import type { Waiter } from "@/lib/api/locks";

/** Contenders waiting for a resource, longest waiting first. */
export function WaitersTable({ waiters, nodeCount }: { waiters: Waiter[]; nodeCount: number }) {
  return (
    <div className="table-scroll">
      <table className="plain" aria-label="Waiters">
        <thead>
          <tr>
            <th scope="col">Waiter</th>
            <th scope="col">Labels</th>
            <th scope="col">Waiting for</th>
            <th scope="col">Gives up at</th>
            <th scope="col">Nodes</th>
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
    </div>
  );
}
