"use client";

import type { KeyboardEvent } from "react";
import type { AuditAction } from "@/lib/api";
import type { AuditFilters } from "../_queries/audit";

type FilterName = "action" | "person" | "resource" | "since" | "until" | "id";

/** A datetime-local input's value (local time) from epoch ms, and back. */
const toLocalInput = (epochMs: number | undefined) => {
  if (epochMs === undefined) return "";
  const date = new Date(epochMs);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
/** Enter applies a text filter (as leaving the field does). */
const blurOnEnter = (event: KeyboardEvent<HTMLInputElement>) => {
  if (event.key === "Enter") event.currentTarget.blur();
};
const fromLocalInput = (text: string) => (text ? String(new Date(text).getTime()) : "");

/** The audit's filters: action, person, resource, a time window; and the one-entry view's way back. */
export function AuditFilterBar({
  action,
  actions,
  filters,
  onChange,
}: {
  action: AuditAction | "";
  actions: readonly AuditAction[];
  filters: AuditFilters;
  onChange: (name: FilterName, value: string) => void;
}) {
  if (filters.id) {
    return (
      <p className="row">
        Showing one entry (<code>{filters.id}</code>).
        <button type="button" onClick={() => onChange("id", "")}>
          Show the whole trail
        </button>
      </p>
    );
  }
  return (
    <div className="row" role="search" aria-label="Audit filters" style={{ flexWrap: "wrap" }}>
      <label className="row">
        Action
        <select value={action} onChange={(event) => onChange("action", event.target.value)}>
          <option value="">All actions</option>
          {actions.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label className="row">
        Person
        <input
          defaultValue={filters.person ?? ""}
          placeholder="alice@example.com"
          onBlur={(event) => onChange("person", event.target.value.trim())}
          onKeyDown={blurOnEnter}
        />
      </label>
      <label className="row">
        Resource
        <input
          defaultValue={filters.resource ?? ""}
          placeholder="orders:42"
          onBlur={(event) => onChange("resource", event.target.value)}
          onKeyDown={blurOnEnter}
        />
      </label>
      <label className="row">
        From
        <input
          type="datetime-local"
          value={toLocalInput(filters.since)}
          onChange={(event) => onChange("since", fromLocalInput(event.target.value))}
        />
      </label>
      <label className="row">
        To
        <input
          type="datetime-local"
          value={toLocalInput(filters.until)}
          onChange={(event) => onChange("until", fromLocalInput(event.target.value))}
        />
      </label>
    </div>
  );
}
