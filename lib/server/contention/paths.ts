/**
 * Chains and cycles of a wait-for graph (graph.ts), pure. A chain starts at a waiter nobody waits
 * for and follows, at each step, the edge toward the deepest blocker, so "longest first" is the
 * longest path out of each starting waiter; it stops at a root blocker (waits for nobody) or at a
 * cycle. A cycle is reported once per strongly connected component: the shortest cycle through its
 * smallest participant id, so the same deadlock reads the same on every build.
 */
import type { ContentionChain } from "@/lib/api";
import { components, type Edge, type WaitGraph } from "./graph";

export interface FoundCycle {
  readonly sessions: string[];
  readonly resources: string[];
}

/** A chain as found: its longest wait is dated at each response (oldestSinceMs), not per build. */
export type FoundChain = Omit<ContentionChain, "longestWaitMs"> & {
  readonly oldestSinceMs: number;
};

export interface Paths {
  readonly chains: FoundChain[];
  readonly chainsTotal: number;
  readonly cycles: FoundCycle[];
}

/** Whether each component is a cycle: two members or more, or one that waits for itself. */
function cyclicComponents(graph: WaitGraph, order: number[][]): boolean[] {
  return order.map(
    (members) =>
      members.length > 1 || graph.edges[members[0]!]!.some((edge) => edge.to === members[0]),
  );
}

/** Shortest cycle through `start` inside its component (breadth-first, parents kept). */
function cycleThrough(
  graph: WaitGraph,
  start: number,
  inside: (node: number) => boolean,
): FoundCycle {
  const parent = new Map<number, { from: number; edge: Edge }>();
  const queue = [start];
  let closing: { from: number; edge: Edge } | undefined;
  for (let head = 0; head < queue.length && !closing; head += 1) {
    const at = queue[head]!;
    for (const edge of graph.edges[at]!) {
      if (edge.to === start) {
        closing = { from: at, edge };
        break;
      }
      if (!inside(edge.to) || parent.has(edge.to)) continue;
      parent.set(edge.to, { from: at, edge });
      queue.push(edge.to);
    }
  }
  const steps: Array<{ from: number; edge: Edge }> = [];
  for (let step = closing; step; step = step.from === start ? undefined : parent.get(step.from))
    steps.unshift(step);
  return {
    sessions: steps.map((step) => graph.ids[step.from]!),
    resources: steps.map((step) => step.edge.resource),
  };
}

export function findPaths(graph: WaitGraph, maxChains: number): Paths {
  const { componentOf, order } = components(graph);
  const cyclic = cyclicComponents(graph, order);
  const inCycle = (node: number) => cyclic[componentOf[node]!]!;
  const cycles: FoundCycle[] = [];
  order.forEach((members, component) => {
    if (!cyclic[component]) return;
    const start = members.reduce((best, member) =>
      graph.ids[member]! < graph.ids[best]! ? member : best,
    );
    cycles.push(cycleThrough(graph, start, (node) => componentOf[node] === component));
  });
  // Depth of each participant: successors' components close first in Tarjan's order.
  const depth = new Array<number>(graph.ids.length).fill(0);
  const best = new Array<Edge | undefined>(graph.ids.length);
  for (const members of order)
    for (const node of members) {
      if (inCycle(node)) continue;
      for (const edge of graph.edges[node]!)
        if (!best[node] || depth[edge.to]! + 1 > depth[node]!) {
          depth[node] = depth[edge.to]! + 1;
          best[node] = edge;
        }
    }
  const starts = graph.ids
    .map((_, node) => node)
    .filter((node) => graph.inDegree[node] === 0 && best[node] !== undefined)
    .sort((a, b) => depth[b]! - depth[a]! || (graph.ids[a]! < graph.ids[b]! ? -1 : 1));
  const chains = starts.slice(0, maxChains).map((start) => chainFrom(graph, start, best, inCycle));
  return { chains, chainsTotal: starts.length, cycles };
}

function chainFrom(
  graph: WaitGraph,
  start: number,
  best: ReadonlyArray<Edge | undefined>,
  inCycle: (node: number) => boolean,
): FoundChain {
  const sessions = [graph.ids[start]!];
  const resources: string[] = [];
  let oldestSinceMs = Number.POSITIVE_INFINITY;
  let at = start;
  for (let edge = best[at]; edge; edge = inCycle(at) ? undefined : best[at]) {
    resources.push(edge.resource);
    oldestSinceMs = Math.min(oldestSinceMs, edge.sinceMs);
    at = edge.to;
    sessions.push(graph.ids[at]!);
  }
  return { sessions, resources, endsInCycle: inCycle(at), oldestSinceMs };
}
