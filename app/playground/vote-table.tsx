import { formatLatencyMs } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { Attempt } from "@/lib/api";

/** How each node voted in the last attempt of an operation, and how long it took to answer. */
export function VoteTable({ attempts }: { attempts: Attempt[] }) {
  const last = attempts.at(-1);
  if (!last) return null;
  return (
    <div className="stack" style={{ gap: "0.4rem" }}>
      <p className="muted" style={{ margin: 0 }}>
        {attempts.length === 1 ? "1 attempt" : `${attempts.length} attempts; the last one`}:{" "}
        {last.votesFor} of {last.membershipSize} nodes for (needs {last.quorumSize})
      </p>
      <PlainTable label="Node votes" columns={["Node", "Vote", "Latency", "Why against"]}>
        {last.votes.map((vote) => (
          <tr key={vote.nodeId}>
            <th scope="row">
              {vote.nodeId} <span className="muted mono">{vote.address}</span>
            </th>
            <td>
              <span className={vote.vote === "for" ? "badge badge-held" : "badge badge-conflict"}>
                {vote.vote}
              </span>
            </td>
            <td>{formatLatencyMs(vote.latencyMs)}</td>
            <td className="wrap-anywhere">{vote.error ?? ""}</td>
          </tr>
        ))}
      </PlainTable>
    </div>
  );
}
