/**
 * Filtering and grouping rows by an owner label (`service=billing`, group by `service`). Pure, so
 * the overview's URL state and its unit tests share it.
 */
import type { LockOwner } from "@/lib/api/locks";

interface OwnedRow {
  owner: LockOwner;
}

export interface OwnerLabelFilter {
  name: string;
  /** null: any row that has the label, whatever its value. */
  value: string | null;
}

/** "service=billing" → {service, billing}; "service" → any value; "" → no filter. */
export function parseOwnerFilter(text: string): OwnerLabelFilter | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const equals = trimmed.indexOf("=");
  if (equals < 0) return { name: trimmed, value: null };
  return { name: trimmed.slice(0, equals).trim(), value: trimmed.slice(equals + 1).trim() };
}

export function labelOf(row: OwnedRow, name: string): string | null {
  return row.owner.kind === "labelled" ? (row.owner.labels[name] ?? null) : null;
}

export function matchesOwner(row: OwnedRow, filter: OwnerLabelFilter | null): boolean {
  if (!filter) return true;
  const value = labelOf(row, filter.name);
  return value !== null && (filter.value === null || value === filter.value);
}

/** Label names present on any row, sorted: the choices of "group by". */
export function labelNames(rows: readonly OwnedRow[]): string[] {
  const names = new Set<string>();
  for (const row of rows)
    if (row.owner.kind === "labelled")
      for (const name of Object.keys(row.owner.labels)) names.add(name);
  return [...names].sort();
}

export type GroupedItem<T> =
  { kind: "group"; value: string | null; count: number } | { kind: "lock"; row: T };

/**
 * Rows under one header per value of the label, values in order and rows without the label last;
 * within a group rows keep their (sorted) order. Without a label: the rows as they are.
 */
export function groupByLabel<T extends OwnedRow>(
  rows: readonly T[],
  name: string | null,
): GroupedItem<T>[] {
  if (!name) return rows.map((row) => ({ kind: "lock", row }));
  const groups = new Map<string | null, T[]>();
  for (const row of rows) {
    const value = labelOf(row, name);
    const members = groups.get(value);
    if (members) members.push(row);
    else groups.set(value, [row]);
  }
  const values = [...groups.keys()].sort((a, b) =>
    a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0,
  );
  return values.flatMap((value) => {
    const members = groups.get(value)!;
    return [
      { kind: "group", value, count: members.length } as const,
      ...members.map((row) => ({ kind: "lock", row }) as const),
    ];
  });
}
