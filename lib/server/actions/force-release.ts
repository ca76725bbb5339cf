import "server-only";
/**
 * Force-release on the nodes: the operator's emergency unlock. With `expectedValue` it first checks
 * every node and changes nothing if any holds another value (the lock moved on since the operator
 * looked); then, as `decide` says, it either compare-and-deletes per node or compare-and-sets a
 * tombstone per node (docs/holder-sessions.md), so a value that changes between check and write is
 * still never touched. With `force: true` it deletes whatever lock each node holds.
 */
import { randomUUID } from "node:crypto";
import type { ForceReleaseNodeResult, ForceReleaseRequest } from "@/lib/api";
import { slotHashTag } from "@redlock-console/redlock";
import type { ConsoleNode } from "../node-registry";
import { assertLockKey } from "../resource-path";
import { describeKey } from "../locks/read/key-name";
import { forceReleaseOnNode, type NodeAnswer, type NodeRequest } from "./force-release-node";

/** What to write once the check passed: delete, or the tombstone (with the replaced value's TTL). */
export type Disposal =
  | { readonly mode: "delete" }
  | { readonly mode: "tombstone"; readonly tombstone: string; readonly ttlMs: number | null };

export interface ForceReleaseOutcome {
  readonly resource: string;
  readonly deletedCount: number;
  readonly tombstonedCount: number;
  readonly nodes: ForceReleaseNodeResult[];
  /** True when some node held another value than expected: the answer is 409. */
  readonly valueChanged: boolean;
  /** Nodes that did not answer: the audit line skips them rather than wait again. */
  readonly silentNodeIds: ReadonlySet<string>;
  /**
   * Nodes sent the write that did not answer in time: Redis may still run it when the node
   * resumes. Their outcome markers (under `markerKey`) tell later what it did.
   */
  readonly pendingNodeIds: readonly string[];
  readonly markerKey: string;
}

const MARKER_PREFIX = "redlock:console:force-release:";

/** The key a request names, checked as a lock key (4xx otherwise). */
export function keyOf(request: Pick<ForceReleaseRequest, "resource" | "resourceBase64">): Buffer {
  return request.resource !== undefined
    ? assertLockKey(Buffer.from(request.resource, "utf8"), "Invalid request body: resource")
    : assertLockKey(
        Buffer.from(request.resourceBase64 ?? "", "base64"),
        "Invalid request body: resourceBase64: decoded",
      );
}

const OUTCOMES: Record<NodeAnswer["outcome"], ForceReleaseNodeResult["outcome"]> = {
  deleted: "deleted",
  replaced: "tombstoned",
  absent: "absent",
  match: "kept",
  mismatch: "mismatch",
  not_a_lock: "mismatch",
  unreachable: "unreachable",
};

function toResult(node: ConsoleNode, answer: NodeAnswer): ForceReleaseNodeResult {
  return {
    nodeId: node.id,
    outcome: OUTCOMES[answer.outcome],
    value: answer.holder,
    latencyMs: Math.round(answer.latencyMs * 100) / 100,
  };
}

export interface ForceReleaseOptions {
  readonly deadlineMs: number;
  /** Nodes known hung are reported unreachable without waiting for another timeout. */
  readonly isHung: (node: ConsoleNode) => boolean;
  /**
   * Called once the check passed (at once with `force: true`), before anything is written: what
   * to write. `found.redisson`: a node holds the value as a Redisson hash; `found.holder`: the
   * value a matching node holds (cut past READ_VALUE_MAX_BYTES; null with `force: true`). May throw
   * to refuse.
   */
  readonly decide: (found: {
    readonly redisson: boolean;
    readonly holder: string | null;
  }) => Promise<Disposal>;
}

/** A lock key and the value (or its digest) the operator saw; neither: any (force: true). */
export interface ForceReleaseTarget {
  readonly key: Buffer;
  readonly expectedValue?: string;
  /** `sha1:<12 hex>`: compared with the SHA-1 of what each node holds (force-release-node.ts). */
  readonly expectedDigest?: string;
}

export async function forceRelease(
  nodes: readonly ConsoleNode[],
  target: ForceReleaseTarget,
  options: ForceReleaseOptions,
): Promise<ForceReleaseOutcome> {
  const { key, expectedValue, expectedDigest } = target;
  const resource = describeKey(key).resource;
  const compared = expectedValue !== undefined || expectedDigest !== undefined;
  const expected =
    expectedDigest !== undefined ? `digest:${expectedDigest}` : (expectedValue ?? "");
  // A node that failed one phase is not asked again: it could only time out a second time.
  const silent = new Set(nodes.filter(options.isHung).map((node) => node.id));
  // In the resource's slot, so that a cluster node runs the script (one slot per script) on its shard.
  const markerKey = `${MARKER_PREFIX}${slotHashTag(key)}:${randomUUID()}`;
  const pending: string[] = [];
  const runAll = async (request: NodeRequest) => {
    const asked = nodes.filter((node) => !silent.has(node.id));
    const answers = await Promise.all(
      nodes.map((node): Promise<NodeAnswer> | NodeAnswer =>
        silent.has(node.id)
          ? { outcome: "unreachable", holder: null, type: null, latencyMs: 0 }
          : forceReleaseOnNode(node, key, request, options.deadlineMs, markerKey),
      ),
    );
    answers.forEach((answer, index) => {
      if (answer.outcome !== "unreachable") return;
      const node = nodes[index]!;
      silent.add(node.id);
      if (request.mode !== "check" && asked.includes(node)) pending.push(node.id);
    });
    return answers;
  };
  let redisson = false;
  let holder: string | null = null;
  if (compared) {
    const checks = await runAll({ mode: "check", expected });
    if (checks.some((answer) => answer.outcome === "mismatch" || answer.outcome === "not_a_lock")) {
      return {
        resource,
        deletedCount: 0,
        tombstonedCount: 0,
        nodes: nodes.map((node, index) => toResult(node, checks[index]!)),
        valueChanged: true,
        silentNodeIds: silent,
        pendingNodeIds: [],
        markerKey,
      };
    }
    redisson = checks.some((answer) => answer.outcome === "match" && answer.type === "hash");
    holder = checks.find((answer) => answer.outcome === "match")?.holder ?? null;
  }
  const disposal = await options.decide({ redisson, holder });
  const request: NodeRequest = !compared
    ? { mode: "any", expected }
    : disposal.mode === "tombstone"
      ? { mode: "tombstone", expected, tombstone: disposal.tombstone, ttlMs: disposal.ttlMs }
      : { mode: "expect", expected };
  const answers = await runAll(request);
  // A node that answered needs no marker: only late nodes are asked for theirs later.
  for (const node of nodes) {
    if (!silent.has(node.id)) void node.client.del(markerKey).catch(() => undefined);
  }
  const results = nodes.map((node, index) => toResult(node, answers[index]!));
  const count = (outcome: ForceReleaseNodeResult["outcome"]) =>
    results.filter((result) => result.outcome === outcome).length;
  return {
    resource,
    deletedCount: count("deleted"),
    tombstonedCount: count("tombstoned"),
    nodes: results,
    valueChanged: results.some((result) => result.outcome === "mismatch"),
    silentNodeIds: silent,
    pendingNodeIds: pending,
    markerKey,
  };
}
