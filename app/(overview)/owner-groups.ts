/**
 * Filtering and grouping rows by an owner label (`service=billing`, group by `service`). Pure, so
 * the overview's URL state and its unit tests share it.
 */
import { labelsMatch, type LockOwner, type OwnerLabelFilter } from "@/lib/api";

// The server applies the owner filter (GET /api/locks?owner=): one parser for both sides.
export { parseOwnerFilter, type OwnerLabelFilter } from "@/lib/api";

interface OwnedRow {
  owner: LockOwner;
}

export function labelOf(row: OwnedRow, name: string): string | null {
  return row.owner.kind === "labelled" ? (row.owner.labels[name] ?? null) : null;
}

export function matchesOwner(row: OwnedRow, filter: OwnerLabelFilter | null): boolean {
  return labelsMatch(row.owner.kind === "labelled" ? row.owner.labels : null, filter);
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
