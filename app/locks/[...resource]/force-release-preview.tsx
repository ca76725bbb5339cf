import { shortValue } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { NodeHolder } from "@/lib/api";

/** What forcing does to the value held: deleted, replaced by a tombstone, or nothing decided (yet). */
export type Disposal = "delete" | "tombstone" | null;

type PlannedOutcome = "act" | "keep-other" | "absent" | "unreachable";

function plannedOutcome(
  holder: NodeHolder,
  expectedValue: string | null,
  force: boolean,
): PlannedOutcome {
  if (!holder.reachable) return "unreachable";
  if (holder.value === null) return "absent";
  if (force || holder.value === expectedValue) return "act";
  return "keep-other";
}

const ACT_TEXT: Record<"delete" | "tombstone" | "undecided", string> = {
  delete: "will be deleted",
  tombstone: "will be replaced by a tombstone",
  undecided: "nothing written unless you choose above",
};

const OTHER_TEXT: Record<Exclude<PlannedOutcome, "act">, string> = {
  "keep-other": "holds another value: compare-and-delete will refuse",
  absent: "no key: nothing to delete",
  unreachable: "not reachable: cannot be deleted now",
};

/** Whether compare-and-delete would be refused because some node holds a different value. */
export function hasForeignValue(nodes: NodeHolder[], expectedValue: string | null): boolean {
  return nodes.some((holder) => holder.value !== null && holder.value !== expectedValue);
}

/**
 * What the force-release will do on each node, before the operator confirms, and in the words of
 * the rule the server applies (lib/api/unlock-rule.ts): the cost ("nobody else gets it for at most
 * N s") said before the click.
 */
export function ForceReleasePreview({
  nodes,
  expectedValue,
  force,
  disposal,
  words,
}: {
  nodes: NodeHolder[];
  expectedValue: string | null;
  force: boolean;
  disposal: Disposal;
  /** `unlockDecision(…).words`: what forcing does, with its duration. */
  words: string;
}) {
  const actText = ACT_TEXT[disposal ?? "undecided"];
  return (
    <>
      <p aria-label="What forcing does">{words}</p>
      <PlainTable
        label="What force-release does on each node"
        columns={["Node", "Value there", "Action"]}
      >
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
              <td>{outcome === "act" ? actText : OTHER_TEXT[outcome]}</td>
            </tr>
          );
        })}
      </PlainTable>
    </>
  );
}
