import "server-only";
/**
 * One action's calls over the nodes, phase after phase (a check, then a write), as force-release
 * and revoke make them: each node's call bounded by the deadline; a node known hung, or silent in an
 * earlier phase, skipped (it could only time out again); and what did not answer reported. Silent
 * nodes: the audit line skips them too. Pending nodes: sent a write they did not answer in time; a
 * paused node keeps it queued and may run it when it resumes (force-release-follow-up.ts).
 */
import { withDeadline, type ConsoleNode } from "../node-registry";

/** One node's reply; `latencyMs` is 0 for a node skipped as silent. */
export type NodeReply<T> =
  | {
      readonly nodeId: string;
      readonly answered: true;
      readonly value: T;
      readonly latencyMs: number;
    }
  | { readonly nodeId: string; readonly answered: false; readonly latencyMs: number };

/** "write": the call changes state, so a node sent it that does not answer is pending. */
export type CallKind = "read" | "write";

export interface FanOutOptions {
  readonly deadlineMs: number;
  /** The node has a command overdue right now: skipped from the first phase on. */
  readonly isHung: (node: ConsoleNode) => boolean;
}

export interface FanOut {
  /** Known hung at the start, or did not answer a phase; grows as phases run. */
  readonly silentNodeIds: ReadonlySet<string>;
  /** Sent a write they did not answer in time; grows as phases run. */
  readonly pendingNodeIds: readonly string[];
  /** Calls every node not silent, in parallel; one reply per node, in the nodes' order. */
  run<T>(kind: CallKind, call: (node: ConsoleNode) => Promise<T>): Promise<NodeReply<T>[]>;
}

export function fanOut(nodes: readonly ConsoleNode[], options: FanOutOptions): FanOut {
  const silent = new Set(nodes.filter(options.isHung).map((node) => node.id));
  const pending: string[] = [];

  async function callOne<T>(
    node: ConsoleNode,
    call: (node: ConsoleNode) => Promise<T>,
  ): Promise<NodeReply<T>> {
    if (silent.has(node.id)) return { nodeId: node.id, answered: false, latencyMs: 0 };
    const startMs = performance.now();
    try {
      const value = await withDeadline(call(node), options.deadlineMs);
      return { nodeId: node.id, answered: true, value, latencyMs: performance.now() - startMs };
    } catch {
      // A refused call counts as no answer: the action cannot tell what the node did.
      return { nodeId: node.id, answered: false, latencyMs: performance.now() - startMs };
    }
  }

  return {
    silentNodeIds: silent,
    pendingNodeIds: pending,
    async run(kind, call) {
      const replies = await Promise.all(nodes.map((node) => callOne(node, call)));
      for (const reply of replies) {
        // Already silent: skipped in this phase, so sent nothing.
        if (reply.answered || silent.has(reply.nodeId)) continue;
        silent.add(reply.nodeId);
        if (kind === "write") pending.push(reply.nodeId);
      }
      return replies;
    },
  };
}
