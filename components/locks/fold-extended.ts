/**
 * Issue 41 item 5: a worker extending every few seconds fills the Events page with `extended` rows
 * (460 of 482 after five minutes). Its extensions fold into one row per hold ("extended 45× since
 * 10:02"), placed where the newest one is; the reader expands it when the extensions matter. Pure.
 */
import type { Transition } from "@/lib/api";

export type FoldedItem =
  | { readonly type: "row"; readonly transition: Transition }
  /** Extensions of one hold, newest first (two or more). */
  | { readonly type: "fold"; readonly key: string; readonly transitions: readonly Transition[] };

/** One hold: the key's bytes (or name) and the holder's value. */
const holdKey = (transition: Transition) =>
  `${transition.resourceBase64 ?? transition.resource}\u0000${transition.value ?? ""}`;

/** Transitions (newest first) with each hold's extensions folded, when it has two or more. */
export function foldExtended(transitions: readonly Transition[]): FoldedItem[] {
  const groups = new Map<string, Transition[]>();
  for (const transition of transitions) {
    if (transition.kind !== "extended") continue;
    const key = holdKey(transition);
    const group = groups.get(key);
    if (group) group.push(transition);
    else groups.set(key, [transition]);
  }
  const placed = new Set<string>();
  const items: FoldedItem[] = [];
  for (const transition of transitions) {
    const key = transition.kind === "extended" ? holdKey(transition) : null;
    const group = key === null ? undefined : groups.get(key);
    if (key === null || !group || group.length < 2) {
      items.push({ type: "row", transition });
    } else if (!placed.has(key)) {
      placed.add(key);
      items.push({ type: "fold", key, transitions: group });
    }
  }
  return items;
}
