"use client";

import { useState } from "react";
import { zoneLabel } from "@/components/ui/format";
import { transitionKindSchema, type Transition, type TransitionKind } from "@/lib/api";
import { TRANSITION_TEXT } from "./transition-kind";
import { TransitionTable } from "./transition-table";

/** Rows listed at most: the newest of the chosen kind. */
const LISTED_MAX = 100;

/**
 * A lock's transitions with a kind filter (issue 41 item 5): "expired while held" alone answers
 * "how often did its holder stall?" without paging through its extensions. Filtered in the
 * browser: the hold chart above keeps every transition.
 */
export function LockTransitions({ transitions }: { transitions: readonly Transition[] }) {
  const [kind, setKind] = useState<TransitionKind | "">("");
  // The browser's zone, named in the "When" heading: a time without one is ambiguous in an incident.
  const [zoneText] = useState(() => zoneLabel("local", Date.now()));
  const shown = (kind ? transitions.filter((t) => t.kind === kind) : transitions).slice(
    0,
    LISTED_MAX,
  );
  // Only the kinds this lock has: a choice that can never list a row is noise.
  const present = new Set(transitions.map((transition) => transition.kind));
  return (
    <div className="stack">
      <label className="row">
        Kind
        <select
          value={kind}
          onChange={(event) =>
            setKind(event.target.value === "" ? "" : transitionKindSchema.parse(event.target.value))
          }
        >
          <option value="">All kinds ({transitions.length})</option>
          {transitionKindSchema.options
            .filter((option) => present.has(option) || option === kind)
            .map((option) => (
              <option key={option} value={option}>
                {TRANSITION_TEXT[option].label} (
                {transitions.filter((transition) => transition.kind === option).length})
              </option>
            ))}
        </select>
      </label>
      {shown.length === 0 ? (
        <p className="muted">No transition of this kind since the history began.</p>
      ) : (
        <TransitionTable
          transitions={shown}
          label="Transitions of this lock"
          showResource={false}
          zoneText={zoneText}
        />
      )}
    </div>
  );
}
