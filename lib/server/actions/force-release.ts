import "server-only";
/**
 * Force-release on the nodes: the operator's emergency unlock. With `expectedValue` (or its digest)
 * it first checks every node and changes nothing if any holds another value (the lock moved on
 * since the operator looked); then, as `decide` says, it compare-and-sets a tombstone per node
 * (docs/holder-sessions.md), compare-and-deletes (the explicit delete-now), or writes nothing, so a
 * value that changes between check and write is still never touched. With `force: true` there is
 * no check: each node's script tombstones (or deletes) whatever lock that node holds. A value of no
 * lock format (issue 49 row 3) is left alone by the script on its node, unless an admin said
 * `notALock: true` (a check finding one on any node writes nothing anywhere).
 */
import { randomUUID } from "node:crypto";
import type { ForceReleaseNodeResult, ForceReleaseRequest } from "@/lib/api";
import { slotHashTag } from "@redlock-console/redlock";
import type { ConsoleNode } from "../node-registry";
import { assertLockKey } from "../resource-path";
import { describeKey } from "../locks/read/key-name";
import { fanOut } from "./fan-out";
import { forceReleaseOnNode, type NodeAnswer, type NodeRequest } from "./force-release-node";

/** What to write once the check passed: nothing, delete, or the tombstone (force-release-node.ts). */
export type Disposal =
  | { readonly mode: "delete" }
  /** Nothing written; `reserved`: the value found is a tombstone, left standing. */
  | { readonly mode: "none"; readonly reserved: boolean }
  | {
      readonly mode: "tombstone";
      readonly fields: string;
      readonly driftFactor: number;
      readonly ttlMs: number | null;
    };

export interface ForceReleaseOutcome {
  readonly resource: string;
  readonly deletedCount: number;
  readonly tombstonedCount: number;
  /** Nodes that already held a tombstone, left as it was (never lengthened). */
  readonly reservedCount: number;
  /** Nodes holding a Redisson hash that a tombstone was asked for: left alone. */
  readonly hashCount: number;
  readonly nodes: ForceReleaseNodeResult[];
  /** True when some node held another value than expected: the answer is 409. */
  readonly valueChanged: boolean;
  /**
   * Nodes whose value had no lock format (the script judged it there): left alone (409
   * not_a_lock), or acted on because an admin said `notALock: true`.
   */
  readonly notALockCount: number;
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

const UNREACHABLE = {
  outcome: "unreachable",
  holder: null,
  type: null,
  pttlMs: null,
  notALock: false,
} as const;

const EMPTY_CHECK: CheckedNodes = {
  redisson: false,
  holder: null,
  matchedPttlsMs: [],
  unreachableCount: 0,
};

function checkedNodes(checks: readonly NodeAnswer[]): CheckedNodes {
  const matched = checks.filter((answer) => answer.outcome === "match");
  return {
    redisson: matched.some((answer) => answer.type === "hash"),
    holder: matched[0]?.holder ?? null,
    matchedPttlsMs: matched.map((answer) => answer.pttlMs ?? -1),
    unreachableCount: checks.filter((answer) => answer.outcome === "unreachable").length,
  };
}

/** `force: true` checks nothing, so its decision always writes (unlock-rule.ts). */
function checked(checks: NodeAnswer[] | null): NodeAnswer[] {
  if (checks === null) throw new Error("force-release: nothing to write without a check");
  return checks;
}

/** A check's answers as the outcome of writing nothing: a tombstone found stands ("reserved"). */
const unwritten = (checks: readonly NodeAnswer[], reserved: boolean): NodeAnswer[] =>
  checks.map((answer) =>
    reserved && answer.outcome === "match" ? { ...answer, outcome: "reserved" } : answer,
  );

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
  reserved: "reserved",
  hash: "kept",
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
    pttlMs: answer.pttlMs,
    latencyMs: Math.round(answer.latencyMs * 100) / 100,
  };
}

export interface ForceReleaseOptions {
  readonly deadlineMs: number;
  /** Nodes known hung are reported unreachable without waiting for another timeout. */
  readonly isHung: (node: ConsoleNode) => boolean;
  /**
   * Called once the check passed (at once with `force: true`), before anything is written: what
   * to write. May throw to refuse.
   */
  readonly decide: (found: CheckedNodes) => Promise<Disposal>;
}

/** What the check found (all zero and null with `force: true`, which checks nothing). */
export interface CheckedNodes {
  /** A node holds the value as a Redisson hash. */
  readonly redisson: boolean;
  /** The value a matching node holds (cut past READ_VALUE_MAX_BYTES). */
  readonly holder: string | null;
  /** Nodes holding the value, and their PTTLs (-1: no TTL). */
  readonly matchedPttlsMs: readonly number[];
  readonly unreachableCount: number;
}

/** A lock key and the value (or its digest) the operator saw; neither: any (force: true). */
export interface ForceReleaseTarget {
  readonly key: Buffer;
  readonly expectedValue?: string;
  /** `sha1:<12 hex>`: compared with the SHA-1 of what each node holds (force-release-node.ts). */
  readonly expectedDigest?: string;
  /** Act on a value of no lock format too: an admin's explicit `notALock: true`. */
  readonly notALock?: boolean;
}

export async function forceRelease(
  nodes: readonly ConsoleNode[],
  target: ForceReleaseTarget,
  options: ForceReleaseOptions,
): Promise<ForceReleaseOutcome> {
  const { key, expectedValue, expectedDigest, notALock } = target;
  const resource = describeKey(key).resource;
  const compared = expectedValue !== undefined || expectedDigest !== undefined;
  const expected =
    expectedDigest !== undefined ? `digest:${expectedDigest}` : (expectedValue ?? "");
  const nodesFanOut = fanOut(nodes, options);
  // In the resource's slot, so that a cluster node runs the script (one slot per script) on its shard.
  const markerKey = `${MARKER_PREFIX}${slotHashTag(key)}:${randomUUID()}`;
  const runAll = async (request: NodeRequest): Promise<NodeAnswer[]> => {
    const replies = await nodesFanOut.run(request.mode === "check" ? "read" : "write", (node) =>
      forceReleaseOnNode(node, key, { ...request, notALock }, markerKey),
    );
    return replies.map((reply) =>
      reply.answered
        ? { ...reply.value, latencyMs: reply.latencyMs }
        : { ...UNREACHABLE, latencyMs: reply.latencyMs },
    );
  };
  const checks = compared ? await runAll({ mode: "check", expected }) : null;
  const { silentNodeIds, pendingNodeIds } = nodesFanOut;
  const written = { silentNodeIds, pendingNodeIds, markerKey };
  if (checks?.some((answer) => answer.outcome === "mismatch" || answer.outcome === "not_a_lock"))
    return outcomeOf(resource, nodes, checks, written);
  const disposal = await options.decide(checks ? checkedNodes(checks) : EMPTY_CHECK);
  if (disposal.mode === "none")
    return outcomeOf(resource, nodes, unwritten(checked(checks), disposal.reserved), written);
  const answers = await runAll(
    disposal.mode === "tombstone"
      ? { ...disposal, expected: compared ? expected : "" }
      : { mode: "delete", expected: compared ? expected : "" },
  );
  // A node that answered needs no marker: only late nodes are asked for theirs later.
  for (const node of nodes) {
    if (!silentNodeIds.has(node.id)) void node.client.del(markerKey).catch(() => undefined);
  }
  return outcomeOf(resource, nodes, answers, written);
}

/** The outcome of the nodes' `answers` (a check's, when nothing was written). */
function outcomeOf(
  resource: string,
  nodes: readonly ConsoleNode[],
  answers: readonly NodeAnswer[],
  written: Pick<ForceReleaseOutcome, "silentNodeIds" | "pendingNodeIds" | "markerKey">,
): ForceReleaseOutcome {
  const results = nodes.map((node, index) => toResult(node, answers[index]!));
  const count = (outcome: ForceReleaseNodeResult["outcome"]) =>
    results.filter((result) => result.outcome === outcome).length;
  return {
    resource,
    deletedCount: count("deleted"),
    tombstonedCount: count("tombstoned"),
    reservedCount: count("reserved"),
    hashCount: answers.filter((answer) => answer.outcome === "hash").length,
    nodes: results,
    // A value of no lock format is no other holder's: not_a_lock, never value_changed.
    valueChanged: answers.some((answer) => answer.outcome === "mismatch"),
    notALockCount: answers.filter((answer) => answer.notALock).length,
    ...written,
  };
}
