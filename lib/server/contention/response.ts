/**
 * The `GET /api/contention` body's parts that the monitor does not keep: the participants a
 * response names, the empty graph before the first tick, and the detection bound.
 */
import type { ContentionResponse } from "@/lib/api";
import type { LiveIndex } from "../locks/rows/live-index";
import { participantOf, type WaitGraph } from "./graph";

/** The graph's rebuild period, ms. */
export const TICK_MS = 200;
/** From a change on a node to the index, with keyspace events (measured in ms; a margin). */
const EVENT_MARGIN_MS = 100;

/** The participants the listed chains and cycles name, in the API's shape. */
export function participantsNamed(
  graph: WaitGraph,
  paths: ReadonlyArray<{ readonly sessions: readonly string[] }>,
): ContentionResponse["participants"] {
  const named = new Set<string>();
  for (const path of paths) for (const id of path.sessions) named.add(id);
  const participants: ContentionResponse["participants"] = {};
  graph.ids.forEach((id, position) => {
    if (named.has(id)) participants[id] = participantOf(graph, position);
  });
  return participants;
}

export function emptyGraph(nowMs: number): ContentionResponse {
  return {
    serverTime: nowMs,
    chains: [],
    chainsTotal: 0,
    cycles: [],
    participants: {},
    waits: 0,
    waitList: [],
    cycleEpisodesTotal: 0,
    detectionBoundMs: TICK_MS + EVENT_MARGIN_MS,
    partial: true,
  };
}

/**
 * Keyspace events bring a change in milliseconds, so a tick bounds detection; a polled node shows
 * a change only at its next pass (at least a second apart, longer when listing takes longer), so
 * the bound is how stale its view is, plus that second, plus a tick.
 */
export function detectionBoundMs(index: LiveIndex, nowMs: number): number {
  let bound = TICK_MS + EVENT_MARGIN_MS;
  for (const node of index.listing().nodes)
    if (node.mode !== "watching")
      bound = Math.max(bound, Math.max(0, nowMs - (node.asOf ?? nowMs)) + 1_000 + TICK_MS);
  return Math.round(bound);
}
