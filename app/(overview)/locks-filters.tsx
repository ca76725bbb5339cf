"use client";

import { useEffect, useState } from "react";
import type { LockCounts, LockState } from "@/lib/api";
import styles from "./locks-filters.module.css";

interface LocksFiltersProps {
  match: string;
  state: LockState | null;
  /** Rows by state across the whole snapshot; null until loaded. */
  counts: LockCounts | null;
  /** Owner label filter: "service=billing", or a bare label name. */
  owner: string;
  /** Owner label grouping the table; null: none. */
  groupBy: string | null;
  /** Label names seen on the owners of the loaded locks: the choices of "Group by". */
  labelNames: readonly string[];
  onMatchChange: (match: string) => void;
  onStateChange: (state: LockState | null) => void;
  onOwnerChange: (owner: string) => void;
  onGroupByChange: (groupBy: string | null) => void;
}

const TYPING_PAUSE_MS = 300;

/**
 * A text field's draft, applied once typing pauses, and reset when the applied value changes from
 * outside (back button, a pasted link).
 */
function useTypedDraft(applied: string, apply: (text: string) => void) {
  const [draft, setDraft] = useState(applied);
  const [lastApplied, setLastApplied] = useState(applied);
  if (applied !== lastApplied) {
    setLastApplied(applied);
    setDraft(applied);
  }
  useEffect(() => {
    if (draft === applied) return;
    const timer = setTimeout(() => apply(draft), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [draft, applied, apply]);
  return [draft, setDraft] as const;
}

/** Pattern (Redis glob), state and owner-label filters, and grouping. Text applies once typing pauses. */
export function LocksFilters(props: LocksFiltersProps) {
  const { state, counts, groupBy } = props;
  const [match, setMatch] = useTypedDraft(props.match, props.onMatchChange);
  const [owner, setOwner] = useTypedDraft(props.owner, props.onOwnerChange);
  const groupChoices =
    groupBy && !props.labelNames.includes(groupBy)
      ? [...props.labelNames, groupBy]
      : props.labelNames;

  const countOf = (key: LockState) => (counts ? ` (${counts[key]})` : "");
  return (
    <form
      className={styles.filters}
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        props.onMatchChange(match);
        props.onOwnerChange(owner);
      }}
    >
      <label className={styles.pattern}>
        Resource pattern
        <input
          type="search"
          value={match}
          placeholder="orders:* or job-??"
          onChange={(event) => setMatch(event.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
      </label>
      <label>
        State
        <select
          value={state ?? ""}
          onChange={(event) =>
            props.onStateChange((event.target.value || null) as LockState | null)
          }
        >
          <option value="">Any state</option>
          <option value="held">held{countOf("held")}</option>
          <option value="partial">partial{countOf("partial")}</option>
          <option value="conflict">conflict{countOf("conflict")}</option>
          <option value="releasing">being released{countOf("releasing")}</option>
        </select>
      </label>
      <label className={styles.owner}>
        Owner label
        <input
          type="search"
          value={owner}
          placeholder="service=billing"
          onChange={(event) => setOwner(event.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
      </label>
      <label>
        Group by
        <select
          value={groupBy ?? ""}
          onChange={(event) => props.onGroupByChange(event.target.value || null)}
        >
          <option value="">No grouping</option>
          {groupChoices.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}
