import { shortValue } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { NodeHolder } from "@/lib/api/locks";

type PlannedOutcome = "delete" | "keep-other" | "absent" | "unreachable";

function plannedOutcome(
  holder: NodeHolder,
  expectedValue: string | null,
  force: boolean,
): PlannedOutcome {
  if (!holder.reachable) return "unreachable";
  if (holder.value === null) return "absent";
  if (force || holder.value === expectedValue) return "delete";
  return "keep-other";
}

const OUTCOME_TEXT: Record<PlannedOutcome, string> = {
  delete: "will be deleted",
  "keep-other": "holds another value: compare-and-delete will refuse",
  absent: "no key: nothing to delete",
  unreachable: "not reachable: cannot be deleted now",
};

/** Whether compare-and-delete would be refused because some node holds a different value. */
export function hasForeignValue(nodes: NodeHolder[], expectedValue: string | null): boolean {
  return nodes.some((holder) => holder.value !== null && holder.value !== expectedValue);
}

/** What the force-release will do on each node, before the operator confirms. */
export function ForceReleasePreview({
  nodes,
  expectedValue,
  force,
}: {
  nodes: NodeHolder[];
  expectedValue: string | null;
  force: boolean;
}) {
  return (
    <PlainTable label="What will be deleted" columns={["Node", "Value there", "Action"]}>
      {nodes.map((holder) => {
        const outcome = plannedOutcome(holder, expectedValue, force);
        return (
          <tr key={holder.nodeId} className={`planned-${outcome}`}>
            <td>{holder.nodeId}</td>
            <td>
              {holder.value === null ? (
                "—"
              ) : (
                <code title={holder.value}>{shortValue(holder.value)}</code>
              )}
            </td>
            <td>{OUTCOME_TEXT[outcome]}</td>
          </tr>
        );
      })}
    </PlainTable>
  );
}
