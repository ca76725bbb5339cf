import "server-only";
import { transitionFilter, type EventsQuery, type Transition } from "@/lib/api";
import { compileGlob } from "../locks/read/glob";

/** The query's filters as one predicate over transitions (glob compiled once). */
export function filterOf(query: EventsQuery): (transition: Transition) => boolean {
  const matches = query.match ? compileGlob(query.match) : () => true;
  return transitionFilter(query, matches);
}
