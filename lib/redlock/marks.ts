import { LockForceReleasedError, LockRevokedError } from "./errors";
import { revokeKey } from "./keys";
import type { RedlockNode } from "./node";
import {
  decodeRevokeMarker,
  decodeTombstone,
  encodeRevokeMarker,
  tombstonePrefix,
} from "./protocol";
import { quorumSize } from "./quorum";

/**
 * The console's marks on a lock (docs/holder-sessions.md): a force-release replaces the lock's value
 * on each node with a tombstone naming the replaced value's token, a revoke writes a marker beside
 * the lock naming its whole value. Both formats are the wire protocol's (protocol.ts). The library
 * acts on a mark only once a majority of nodes shows it for one of its own locks: a notice alone,
 * which anyone with PUBLISH can send, moves nothing.
 */
export {
  decodeRevokeMarker,
  decodeTombstone,
  TOMBSTONE_PREFIX,
  tokenOf,
  tombstonePrefix,
  type RevokeMarker,
  type Tombstone,
} from "./protocol";

/** Per node, the text at a key (null: absent), or undefined (not asked, refused, not answered yet). */
export type NodeReads = ReadonlyArray<string | null | undefined>;

/**
 * Whether `node` can answer a read now: not overdue, and connected. A node down or reconnecting
 * (ioredis "reconnecting", node-redis not ready) would hold the command until its deadline.
 */
const canAnswerNow = (node: RedlockNode) =>
  !node.unavailableReason() && node.driver.status === "ready";

/**
 * Reads `key` on every node that can answer now, and resolves once the outcome is decided:
 * `counts` holds on a majority of all nodes, or fails on so many that no majority can hold, or every
 * node asked has answered, or `timeoutMs` passed. A down or hung node is never waited out when the
 * others decide. Replies that come after the decision still land in the returned array; a node
 * still silent at `timeoutMs` is marked overdue (node.ts), as an attempt's would be.
 */
function readUntilDecided(
  nodes: readonly RedlockNode[],
  key: string,
  timeoutMs: number,
  counts: (found: string | null) => boolean,
): Promise<NodeReads> {
  const reads: Array<string | null | undefined> = nodes.map(() => undefined);
  const quorum = quorumSize(nodes.length);
  /** The GETs not answered yet, by node index. */
  const silent = new Map<number, Promise<unknown>>();
  let counted = 0;
  let against = 0;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      for (const [index, reply] of silent) nodes[index]!.markOverdue(reply);
      resolve(reads);
    }, timeoutMs).unref();
    const decide = () => {
      if (silent.size === 0) clearTimeout(timer);
      if (counted >= quorum || against > nodes.length - quorum || silent.size === 0) resolve(reads);
    };
    nodes.forEach((node, index) => {
      if (!canAnswerNow(node)) return;
      const reply = node.driver.command("GET", [key]);
      silent.set(index, reply);
      const settle = (found: string | null | undefined) => {
        silent.delete(index);
        reads[index] = found;
        if (found !== undefined && counts(found)) counted += 1;
        else if (found !== undefined) against += 1;
        decide();
      };
      reply.then(
        (text) => settle(typeof text === "string" ? text : null),
        () => settle(undefined),
      );
    });
    decide();
  });
}

/** The error a tombstone of `value` among `reads` says, if any. */
function tombstoneIn(reads: NodeReads, resource: string, value: string) {
  const prefix = tombstonePrefix(value);
  for (const found of reads) {
    const tombstone = found?.startsWith(prefix) ? decodeTombstone(found) : undefined;
    if (tombstone) {
      const { auditId, by, reason } = tombstone;
      return new LockForceReleasedError({ resource, auditId, by, reason });
    }
  }
  return undefined;
}

/**
 * The force-release of the lock `value` on `resource`, as a LockForceReleasedError, when a majority
 * of nodes holds its tombstone; undefined otherwise.
 */
export async function readForceRelease(
  nodes: readonly RedlockNode[],
  resource: string,
  value: string,
  timeoutMs: number,
): Promise<LockForceReleasedError | undefined> {
  const prefix = tombstonePrefix(value);
  const isTombstone = (found: string | null) =>
    found?.startsWith(prefix) === true && decodeTombstone(found) !== undefined;
  const reads = await readUntilDecided(nodes, resource, timeoutMs, isTombstone);
  const tombstones = reads.filter((found) => found !== undefined && isTombstone(found)).length;
  return tombstones < quorumSize(nodes.length) ? undefined : tombstoneIn(reads, resource, value);
}

/** The reason of a force-release that left no tombstone on the nodes read. */
const LOST_WITHOUT_TOMBSTONE =
  "its value is absent or replaced on a majority of nodes, without the console's tombstone";

/**
 * On a force-release notice (`auditId`): whether the lock `value` on `resource` is lost, i.e. a
 * majority of nodes answered with anything but the value (its tombstone, another value, nothing).
 * The console may have deleted it knowingly, or the value stood on a minority only: either way it
 * no longer excludes anyone. The error names the console's action from a tombstone when one was
 * read, else from the notice alone. A notice for a lock still held on a majority moves nothing.
 */
export async function readLoss(
  nodes: readonly RedlockNode[],
  resource: string,
  value: string,
  timeoutMs: number,
  auditId: string,
): Promise<LockForceReleasedError | undefined> {
  const reads = await readUntilDecided(nodes, resource, timeoutMs, (found) => found !== value);
  const lost = reads.filter((found) => found !== undefined && found !== value).length;
  if (lost < quorumSize(nodes.length)) return undefined;
  return (
    tombstoneIn(reads, resource, value) ??
    new LockForceReleasedError({ resource, auditId, by: "", reason: LOST_WITHOUT_TOMBSTONE })
  );
}

/** A revoke found on a majority: the error to raise, and each node's marker text (to record the release). */
export interface Revoke {
  readonly error: LockRevokedError;
  /** The revoked lock's value: the markers that name it are the ones to record the release in. */
  readonly value: string;
  /** Per node, what its revoke key held (later answers land here too). */
  readonly markers: NodeReads;
}

/** The revoke of the lock `value` on `resource`, when a majority of nodes carries its marker. */
export async function readRevoke(
  nodes: readonly RedlockNode[],
  resource: string,
  value: string,
  timeoutMs: number,
): Promise<Revoke | undefined> {
  const names = (found: string | null | undefined) =>
    typeof found === "string" && decodeRevokeMarker(found)?.value === value;
  const markers = await readUntilDecided(nodes, revokeKey(resource), timeoutMs, names);
  const carrying = markers.filter(names);
  if (carrying.length < quorumSize(nodes.length)) return undefined;
  const { auditId, by, reason, deadlineAt } = decodeRevokeMarker(carrying[0]!)!;
  const error = new LockRevokedError({ resource, auditId, by, reason, deadlineAt });
  return { error, value, markers };
}

/**
 * Records in the revoke marker, on every node that carried it, that the holder released the lock:
 * one `SET … KEEPTTL XX` adding `releasedAt` (XX: a marker that expired meanwhile is not recreated
 * without a TTL). Not awaited by anyone: the console reads it as evidence, nothing depends on it.
 */
export function recordRevokedRelease(
  nodes: readonly RedlockNode[],
  resource: string,
  revoke: Revoke,
  releasedAtMs: number,
): void {
  revoke.markers.forEach((marker, index) => {
    const node = nodes[index];
    const carried = typeof marker === "string" ? decodeRevokeMarker(marker) : undefined;
    if (carried?.value !== revoke.value || !node || node.unavailableReason()) return;
    // The protocol's encoder: the console reads the same fields back (releasedAt added).
    const recorded = encodeRevokeMarker({ ...carried, releasedAt: releasedAtMs });
    node.driver
      .command("SET", [revokeKey(resource), recorded, "KEEPTTL", "XX"])
      .catch(() => undefined);
  });
}
