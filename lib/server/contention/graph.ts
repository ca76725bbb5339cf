/**
 * The wait-for graph, pure: participant S waits for lock L (its waiter entry on L) and L is held by
 * participant T (the holder value's session) ⇒ edge S → T via L. Strongly connected components
 * (Tarjan, iterative: a chain of 10k waiters would overflow a recursive one) give the deadlock
 * cycles; the rest is a DAG whose longest paths are the chains. O(participants + edges) per build;
 * bench/contention.ts measures it.
 */
import type { ContentionParticipant } from "@/lib/api";

/** One waited-for lock as the tracker knows it. */
export interface WaitedLock {
  readonly resource: string;
  /** Its holder (a participant id), labels and value; null when no node holds it right now. */
  readonly holder: { readonly id: string; readonly labels: Labels; readonly value: string } | null;
  /** The live waits on it, by entry id; `participant` is who waits. */
  readonly waits: ReadonlyMap<
    string,
    { readonly participant: string; readonly labels: Labels; readonly sinceMs: number }
  >;
}
type Labels = Readonly<Record<string, string>>;

export interface Edge {
  readonly to: number;
  readonly resource: string;
  readonly sinceMs: number;
}

export interface WaitGraph {
  readonly ids: string[];
  /** Out-edges per participant index (who it waits for). */
  readonly edges: Edge[][];
  readonly inDegree: number[];
  /** Per participant: its labels, the locks it holds (waited for) and those it waits for. */
  readonly labels: Labels[];
  readonly holds: WaitedLock[][];
  readonly waitsFor: WaitedLock[][];
  waits: number;
}

const kindOf = (id: string): ContentionParticipant["kind"] =>
  id.startsWith("waiter:")
    ? "waiter-without-session"
    : id.startsWith("holder:")
      ? "holder-without-session"
      : "session";

/**
 * Allocates per participant and per wait only indices and edges: labels and locks are referenced,
 * and the API's participant objects are made only for the few a response names (participantOf).
 */
export function buildGraph(locks: Iterable<WaitedLock>): WaitGraph {
  const indexOf = new Map<string, number>();
  const graph: WaitGraph = {
    ids: [],
    edges: [],
    inDegree: [],
    labels: [],
    holds: [],
    waitsFor: [],
    waits: 0,
  };
  const node = (id: string, labels: Labels): number => {
    let index = indexOf.get(id);
    if (index === undefined) {
      index = graph.ids.length;
      indexOf.set(id, index);
      graph.ids.push(id);
      graph.labels.push(labels);
      graph.edges.push([]);
      graph.inDegree.push(0);
      graph.holds.push([]);
      graph.waitsFor.push([]);
    }
    return index;
  };
  for (const lock of locks) {
    if (lock.waits.size === 0) continue;
    const holder = lock.holder && node(lock.holder.id, lock.holder.labels);
    if (holder !== null) graph.holds[holder]!.push(lock);
    for (const wait of lock.waits.values()) {
      graph.waits += 1;
      const from = node(wait.participant, wait.labels);
      graph.waitsFor[from]!.push(lock);
      if (holder === null) continue;
      graph.edges[from]!.push({ to: holder, resource: lock.resource, sinceMs: wait.sinceMs });
      graph.inDegree[holder]! += 1;
    }
  }
  return graph;
}

/** The API's view of participant `index`. */
export function participantOf(graph: WaitGraph, index: number): ContentionParticipant {
  const id = graph.ids[index]!;
  const since = (lock: WaitedLock) => {
    for (const wait of lock.waits.values()) if (wait.participant === id) return wait.sinceMs;
    return 0;
  };
  return {
    id,
    kind: kindOf(id),
    labels: { ...graph.labels[index] },
    holds: graph.holds[index]!.map((lock) => ({
      resource: lock.resource,
      value: lock.holder!.value,
    })),
    waitsFor: graph.waitsFor[index]!.map((lock) => ({
      resource: lock.resource,
      since: since(lock),
    })),
  };
}

/**
 * Tarjan's strongly connected components, iteratively. Returns each participant's component and
 * the components in the order Tarjan closes them: every component after all those it reaches.
 */
export function components(graph: WaitGraph): { componentOf: number[]; order: number[][] } {
  const count = graph.ids.length;
  const lowLink = new Array<number>(count).fill(-1);
  const visitIndex = new Array<number>(count).fill(-1);
  const componentOf = new Array<number>(count).fill(-1);
  const onStack = new Array<boolean>(count).fill(false);
  const stack: number[] = [];
  const order: number[][] = [];
  let next = 0;
  for (let root = 0; root < count; root += 1) {
    if (visitIndex[root] !== -1) continue;
    const frames: Array<[node: number, edge: number]> = [[root, 0]];
    visitIndex[root] = lowLink[root] = next++;
    stack.push(root);
    onStack[root] = true;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const [at, edgeIndex] = frame;
      const edge = graph.edges[at]![edgeIndex];
      if (edge) {
        frame[1] += 1;
        const to = edge.to;
        if (visitIndex[to] === -1) {
          visitIndex[to] = lowLink[to] = next++;
          stack.push(to);
          onStack[to] = true;
          frames.push([to, 0]);
        } else if (onStack[to]) lowLink[at] = Math.min(lowLink[at]!, visitIndex[to]!);
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) lowLink[parent[0]] = Math.min(lowLink[parent[0]]!, lowLink[at]!);
      if (lowLink[at] !== visitIndex[at]) continue;
      const members: number[] = [];
      for (let member = stack.pop()!; ; member = stack.pop()!) {
        onStack[member] = false;
        componentOf[member] = order.length;
        members.push(member);
        if (member === at) break;
      }
      order.push(members);
    }
  }
  return { componentOf, order };
}
