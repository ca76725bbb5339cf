import Link from "next/link";
import { formatDurationMs, formatTimestamp, shortValue } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import { isAlarming, type Transition } from "@/lib/api/timeline";
import { OwnerLabels } from "./lock-owner";
import { TransitionKindBadge } from "./transition-kind";
import { visibleText } from "@/components/ui/visible-text";

function Detail({ transition }: { transition: Transition }) {
  const parts: React.ReactNode[] = [];
  if (transition.kind === "gap" && transition.since !== null)
    parts.push(
      `not watched from ${formatTimestamp(transition.since)} (${formatDurationMs(transition.at - transition.since)}): changes then are unknown`,
    );
  if ((transition.kind === "partial" || transition.kind === "conflict") && transition.since)
    parts.push(`since ${formatTimestamp(transition.since)} on ${transition.nodeIds.join(", ")}`);
  if (transition.kind === "evicted") parts.push(`on ${transition.nodeIds.join(", ")}`);
  if (transition.by)
    parts.push(`by ${transition.by}${transition.reason ? `: ${transition.reason}` : ""}`);
  if (transition.afterExpired) {
    const service = transition.afterExpired.owner?.labels.service;
    const previous = service !== undefined ? visibleText(service) : "the previous holder";
    parts.push(
      `${previous}'s hold expired at ${formatTimestamp(transition.afterExpired.expiredAt)} without a release: if it was only paused, both may have acted as holders (possible overlap)`,
    );
  }
  if (transition.value)
    parts.push(
      <code key="value" title={transition.value}>
        {shortValue(transition.value)}
      </code>,
    );
  return (
    <>
      {parts.map((part, index) => (
        <div key={index} className={index === 0 ? undefined : "muted"}>
          {part}
        </div>
      ))}
    </>
  );
}

/** Transitions, newest first; expiries while held, evictions and conflicts stand out. */
export function TransitionTable({
  transitions,
  label,
  showResource = true,
}: {
  transitions: readonly Transition[];
  label: string;
  showResource?: boolean;
}) {
  return (
    <PlainTable
      label={label}
      columns={["When", "What", showResource && "Lock", "Owner", "Held", "Waiters", "Detail"]}
    >
      {transitions.map((transition) => (
        <tr
          key={transition.id}
          data-kind={transition.kind}
          className={isAlarming(transition) ? "transition-alarming" : undefined}
        >
          <td className="nowrap">{formatTimestamp(transition.at)}</td>
          <td>
            <TransitionKindBadge kind={transition.kind} />
          </td>
          {showResource && (
            <td className="wrap-anywhere">
              {transition.resource ? (
                <Link href={`/locks/${encodeURIComponent(transition.resource)}`}>
                  {transition.resource}
                </Link>
              ) : (
                "—"
              )}
            </td>
          )}
          <td>
            {transition.owner ? (
              <OwnerLabels
                labels={transition.owner.labels}
                truncated={transition.owner.truncatedLabels}
              />
            ) : (
              "—"
            )}
          </td>
          <td className="nowrap">
            {transition.heldMs === null ? "—" : formatDurationMs(transition.heldMs)}
          </td>
          <td>{transition.waiters}</td>
          <td className="wrap-anywhere">
            <Detail transition={transition} />
          </td>
        </tr>
      ))}
    </PlainTable>
  );
}
