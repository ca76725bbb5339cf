import "server-only";
/**
 * Force-release: the operator's emergency unlock. With `expectedValue` it first checks every node
 * and deletes nothing if any holds another value (the lock moved on since the operator looked);
 * then it compare-and-deletes per node, so a value that changes between check and delete is still
 * never deleted. With `force: true` it deletes whatever lock each node holds.
 */
import { randomUUID } from "node:crypto";
import type { ForceReleaseNodeResult, ForceReleaseRequest } from "@/lib/api";
import { slotHashTag } from "@redlock-console/redlock";
import type { ConsoleNode } from "../node-registry";
import { assertLockKey } from "../resource-path";
import { describeKey } from "../locks/read/key-name";
import { forceReleaseOnNode, type Mode } from "./force-release-node";

export interface ForceReleaseOutcome {
  readonly resource: string;
  readonly deletedCount: number;
  readonly nodes: ForceReleaseNodeResult[];
  /** True when some node held another value than expected: the answer is 409. */
  readonly valueChanged: boolean;
  /** Nodes that did not answer: the audit line skips them rather than wait again. */
  readonly silentNodeIds: ReadonlySet<string>;
  /**
   * Nodes sent the delete that did not answer in time: Redis may still run it when the node
   * resumes. Their outcome markers (under `markerKey`) tell later what it did.
   */
  readonly pendingNodeIds: readonly string[];
  readonly markerKey: string;
}

const MARKER_PREFIX = "redlock:console:force-release:";

/** The key a force-release request names, checked as a lock key (4xx otherwise). */
export function keyOf(request: Pick<ForceReleaseRequest, "resource" | "resourceBase64">): Buffer {
  return request.resource !== undefined
    ? assertLockKey(Buffer.from(request.resource, "utf8"), "Invalid request body: resource")
    : assertLockKey(
        Buffer.from(request.resourceBase64 ?? "", "base64"),
        "Invalid request body: resourceBase64: decoded",
      );
}

const OUTCOMES: Record<string, ForceReleaseNodeResult["outcome"]> = {
  deleted: "deleted",
  absent: "absent",
  match: "kept",
  mismatch: "mismatch",
  not_a_lock: "mismatch",
  unreachable: "unreachable",
};

function toResult(
  node: ConsoleNode,
  answer: Awaited<ReturnType<typeof forceReleaseOnNode>>,
): ForceReleaseNodeResult {
  return {
    nodeId: node.id,
    outcome: OUTCOMES[answer.outcome] ?? "unreachable",
    value: answer.holder,
    latencyMs: Math.round(answer.latencyMs * 100) / 100,
  };
}

export interface ForceReleaseOptions {
  readonly deadlineMs: number;
  /** Nodes known hung are reported unreachable without waiting for another timeout. */
  readonly isHung: (node: ConsoleNode) => boolean;
}

export async function forceRelease(
  nodes: readonly ConsoleNode[],
  request: ForceReleaseRequest,
  options: ForceReleaseOptions,
): Promise<ForceReleaseOutcome> {
  const key = keyOf(request);
  const resource = describeKey(key).resource;
  const expected = request.expectedValue ?? "";
  // A node that failed one phase is not asked again: it could only time out a second time.
  const silent = new Set(nodes.filter(options.isHung).map((node) => node.id));
  // In the resource's slot, so that a cluster node runs the script (one slot per script) on its shard.
  const markerKey = `${MARKER_PREFIX}${slotHashTag(key)}:${randomUUID()}`;
  const pending: string[] = [];
  const runAll = async (mode: Mode) => {
    const asked = nodes.filter((node) => !silent.has(node.id));
    const answers = await Promise.all(
      nodes.map((node) =>
        silent.has(node.id)
          ? { outcome: "unreachable", holder: null, latencyMs: 0 }
          : forceReleaseOnNode(node, key, mode, expected, options.deadlineMs, markerKey),
      ),
    );
    answers.forEach((answer, index) => {
      if (answer.outcome !== "unreachable") return;
      const node = nodes[index]!;
      silent.add(node.id);
      if (mode !== "check" && asked.includes(node)) pending.push(node.id);
    });
    return nodes.map((node, index) => toResult(node, answers[index]!));
  };
  if (request.expectedValue !== undefined) {
    const checks = await runAll("check");
    if (checks.some((result) => result.outcome === "mismatch")) {
      return {
        resource,
        deletedCount: 0,
        nodes: checks,
        valueChanged: true,
        silentNodeIds: silent,
        pendingNodeIds: [],
        markerKey,
      };
    }
  }
  const results = await runAll(request.expectedValue === undefined ? "any" : "expect");
  // A node that answered needs no marker: only late nodes are asked for theirs later.
  for (const node of nodes) {
    if (!silent.has(node.id)) void node.client.del(markerKey).catch(() => undefined);
  }
  return {
    resource,
    deletedCount: results.filter((result) => result.outcome === "deleted").length,
    nodes: results,
    valueChanged: results.some((result) => result.outcome === "mismatch"),
    silentNodeIds: silent,
    pendingNodeIds: pending,
    markerKey,
  };
}
