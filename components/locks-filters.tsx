"use client";

import { useEffect, useState } from "react";
import type { LockCounts, LockState } from "@/lib/api/locks";
import styles from "./locks-filters.module.css";

interface LocksFiltersProps {
  match: string;
  state: LockState | null;
  /** Rows by state across the whole snapshot; null until loaded. */
  counts: LockCounts | null;
  onMatchChange: (match: string) => void;
  onStateChange: (state: LockState | null) => void;
}

const TYPING_PAUSE_MS = 300;

/** Pattern (Redis glob) and state filters. The pattern applies once typing pauses. */
export function LocksFilters({ match, state, counts, onMatchChange, onStateChange }: LocksFiltersProps) {
  const [draft, setDraft] = useState(match);
  const [lastMatch, setLastMatch] = useState(match);
  // Follow the URL when it changes from outside (back button, a pasted link).
  if (match !== lastMatch) {
    setLastMatch(match);
    setDraft(match);
  }

  useEffect(() => {
    if (draft === match) return;
    const timer = setTimeout(() => onMatchChange(draft), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [draft, match, onMatchChange]);

  const countOf = (key: LockState) => (counts ? ` (${counts[key]})` : "");
  return (
    <form className={styles.filters} role="search" onSubmit={(event) => {
        event.preventDefault();
        onMatchChange(draft);
      }}>
      <label className={styles.pattern}>
        Resource pattern
        <input
          type="search"
          value={draft}
          placeholder="orders:* or job-??"
          onChange={(event) => setDraft(event.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
      </label>
      <label>
        State
        <select value={state ?? ""} onChange={(event) => onStateChange((event.target.value || null) as LockState | null)}>
          <option value="">Any state</option>
          <option value="held">held{countOf("held")}</option>
          <option value="partial">partial{countOf("partial")}</option>
          <option value="conflict">conflict{countOf("conflict")}</option>
        </select>
      </label>
    </form>
  );
}
