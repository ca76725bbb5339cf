/**
 * How `GET /api/locks` orders and filters by owner: the sort keys the server knows, and the owner
 * label filter ("service=billing", or a bare label name), shared by the server and the overview.
 */
import { z } from "zod";

export const lockSortSchema = z.enum([
  /** By the key's bytes (the index's own order): the default. */
  "resource",
  /** By how long the holder has held it (its owner's acquiredAt); ascending = shortest first. */
  "heldFor",
  /** By validity left on a majority; ascending = soonest to run out first (no majority first). */
  "validity",
  /** By the owner's `service` label; locks without one last. */
  "service",
]);
export type LockSort = z.infer<typeof lockSortSchema>;

export const sortOrderSchema = z.enum(["asc", "desc"]);
export type SortOrder = z.infer<typeof sortOrderSchema>;

export interface OwnerLabelFilter {
  name: string;
  /** null: any lock whose owner has the label, whatever its value. */
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

/** Whether owner labels (null: no labelled owner) pass the filter (null: no filter). */
export function labelsMatch(
  labels: Readonly<Record<string, string>> | null,
  filter: OwnerLabelFilter | null,
): boolean {
  if (!filter) return true;
  const value = labels?.[filter.name];
  return value !== undefined && (filter.value === null || value === filter.value);
}
