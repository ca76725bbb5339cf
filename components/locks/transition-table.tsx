import Link from "next/link";
import { formatDurationMs, formatTimestamp, shortValue } from "@/components/ui/format";
import { isAlarming, type Transition } from "@/lib/api/timeline";
import { OwnerLabels } from "./lock-owner";
import { TransitionKindBadge } from "./transition-kind";

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
    const previous = transition.afterExpired.owner?.labels.service ?? "the previous holder";
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
    <div className="table-scroll">
      <table className="plain" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            {showResource && <th scope="col">Lock</th>}
            <th scope="col">Owner</th>
            <th scope="col">Held</th>
            <th scope="col">Waiters</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
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
              <td>{transition.owner ? <OwnerLabels labels={transition.owner.labels} /> : "—"}</td>
              <td className="nowrap">
                {transition.heldMs === null ? "—" : formatDurationMs(transition.heldMs)}
              </td>
              <td>{transition.waiters}</td>
              <td className="wrap-anywhere">
                <Detail transition={transition} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
