"use client";

import Link from "next/link";
import { useState } from "react";
import {
  formatClockIn,
  formatDurationWords,
  formatTimestampIn,
  type TimeZoneChoice,
} from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import { isAlarming, type Transition } from "@/lib/api";
import { foldExtended } from "./fold-extended";
import { lockHref } from "./lock-href";
import { labelsText, ownerHeadline } from "./owner-text";
import { TransitionDetail } from "./transition-detail";
import { TransitionKindBadge } from "./transition-kind";

interface RowProps {
  transition: Transition;
  showResource: boolean;
  zone: TimeZoneChoice;
}

/** The lock's page, or "—" for a gap (it concerns every lock). */
function LockCell({ transition }: { transition: Transition }) {
  if (!transition.resource) return <>—</>;
  return (
    <Link href={lockHref(transition.resource, transition.resourceBase64 ?? undefined)}>
      {transition.resource}
    </Link>
  );
}

/** Who held it: "service / host / pid", every label in the tooltip. */
function OwnerCell({ transition }: { transition: Transition }) {
  const { owner } = transition;
  if (!owner) return <>—</>;
  return (
    <span className="owner" title={labelsText(owner.labels)}>
      {ownerHeadline(owner.labels)}
    </span>
  );
}

function TransitionRow({ transition, showResource, zone }: RowProps) {
  return (
    <tr
      data-kind={transition.kind}
      className={isAlarming(transition) ? "transition-alarming" : undefined}
    >
      <td className="nowrap">{formatTimestampIn(transition.at, zone)}</td>
      <td>
        <TransitionKindBadge kind={transition.kind} />
      </td>
      {showResource && (
        <td className="wrap-anywhere">
          <LockCell transition={transition} />
        </td>
      )}
      <td className="wrap-anywhere">
        <OwnerCell transition={transition} />
      </td>
      <td className="nowrap">
        {transition.heldMs === null ? "—" : formatDurationWords(transition.heldMs)}
      </td>
      <td>{transition.waiters}</td>
      <td className="wrap-anywhere">
        <TransitionDetail transition={transition} zone={zone} />
      </td>
    </tr>
  );
}

/** A hold's extensions as one row: "extended 45× since 10:02:13", and the button that unfolds them. */
function FoldRow(props: {
  transitions: readonly Transition[];
  showResource: boolean;
  zone: TimeZoneChoice;
  open: boolean;
  onToggle: () => void;
}) {
  const newest = props.transitions[0]!;
  const oldest = props.transitions[props.transitions.length - 1]!;
  const count = props.transitions.length;
  return (
    <tr data-kind="extended" data-folded={count}>
      <td className="nowrap">{formatTimestampIn(newest.at, props.zone)}</td>
      <td>
        <TransitionKindBadge kind="extended" />
      </td>
      {props.showResource && (
        <td className="wrap-anywhere">
          <LockCell transition={newest} />
        </td>
      )}
      <td className="wrap-anywhere">
        <OwnerCell transition={newest} />
      </td>
      <td className="nowrap">—</td>
      <td>{Math.max(...props.transitions.map((transition) => transition.waiters))}</td>
      <td className="wrap-anywhere">
        <div data-testid="extended-fold">
          extended {count}× since {formatClockIn(oldest.at, props.zone)}
        </div>
        <button type="button" aria-expanded={props.open} onClick={props.onToggle}>
          {props.open ? `Fold the ${count} extensions` : `Show the ${count} extensions`}
        </button>
      </td>
    </tr>
  );
}

/**
 * Transitions, newest first; expiries while held (with their cause), evictions, conflicts and
 * possible overlaps stand out. A hold's extensions fold into one row until unfolded.
 */
export function TransitionTable({
  transitions,
  label,
  showResource = true,
  zone = "local",
  zoneText,
}: {
  transitions: readonly Transition[];
  label: string;
  showResource?: boolean;
  zone?: TimeZoneChoice;
  /** The zone as the "When" heading names it, e.g. "UTC" or "UTC+05:30". */
  zoneText?: string;
}) {
  const [unfolded, setUnfolded] = useState<ReadonlySet<string>>(new Set());
  const toggle = (key: string) =>
    setUnfolded((keys) => {
      const next = new Set(keys);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  return (
    <PlainTable
      label={label}
      columns={[
        zoneText ? `When (${zoneText})` : "When",
        "What",
        showResource && "Lock",
        "Owner",
        "Held",
        "Waiters",
        "Detail",
      ]}
    >
      {foldExtended(transitions).flatMap((item) => {
        if (item.type === "row")
          return [
            <TransitionRow
              key={item.transition.id}
              transition={item.transition}
              showResource={showResource}
              zone={zone}
            />,
          ];
        const open = unfolded.has(item.key);
        return [
          <FoldRow
            key={`fold-${item.key}`}
            transitions={item.transitions}
            showResource={showResource}
            zone={zone}
            open={open}
            onToggle={() => toggle(item.key)}
          />,
          ...(open
            ? item.transitions.map((transition) => (
                <TransitionRow
                  key={transition.id}
                  transition={transition}
                  showResource={showResource}
                  zone={zone}
                />
              ))
            : []),
        ];
      })}
    </PlainTable>
  );
}
