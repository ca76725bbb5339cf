import type { NodeHolder } from "@/lib/api";

type Presence = "holds" | "other" | "absent" | "unreachable";

function presenceOf(holder: NodeHolder, majorityValue: string | null): Presence {
  if (!holder.reachable) return "unreachable";
  if (holder.value === null) return "absent";
  return holder.value === majorityValue ? "holds" : "other";
}

const PRESENCE_LABEL: Record<Presence, string> = {
  holds: "holds the value",
  other: "holds another value",
  absent: "no key",
  unreachable: "did not answer",
};

/** One mark per node: filled when it holds the row's value, ringed when another, hollow when absent. */
export function NodePresence({ nodes, value }: { nodes: NodeHolder[]; value: string | null }) {
  const description = nodes
    .map((holder) => `${holder.nodeId}: ${PRESENCE_LABEL[presenceOf(holder, value)]}`)
    .join(", ");
  return (
    <span className="presence" role="img" aria-label={description} title={description}>
      {nodes.map((holder) => (
        <span
          key={holder.nodeId}
          className={`presence-dot presence-${presenceOf(holder, value)}`}
        />
      ))}
    </span>
  );
}
