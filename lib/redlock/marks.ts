import { LockForceReleasedError, LockRevokedError } from "./errors";
import { revokeKey } from "./keys";
import type { RedlockNode } from "./node";
import { quorumSize } from "./quorum";

/**
 * The console's marks on a lock (docs/holder-sessions.md): a force-release replaces the lock's value
 * on each node with a tombstone naming the replaced value's token, a revoke writes a marker beside
 * the lock naming its whole value. The library acts on a mark only once a majority of nodes shows
 * it for one of its own locks: a notice alone, which anyone with PUBLISH can send, moves nothing.
 */
export const TOMBSTONE_PREFIX = "rlx:";

/** The token a value's tombstone names: an `rl1:` value's token, or a bare value whole (RELEASE's Lua agrees). */
export const tokenOf = (value: string): string => /^rl1:([0-9A-Fa-f]+):/.exec(value)?.[1] ?? value;

/** What every tombstone of `value` starts with: `rlx:<token>:`. */
export const tombstonePrefix = (value: string): string => `${TOMBSTONE_PREFIX}${tokenOf(value)}:`;

/** A tombstone: `rlx:<token>:{"auditId","by","reason","at","session"}`. */
export interface Tombstone {
  readonly token: string;
  readonly auditId: string;
  readonly by: string;
  readonly reason: string;
  /** Epoch ms of the force-release, on the console's clock. */
  readonly at: number;
  /** The replaced holder's session id, when it had one. */
  readonly session?: string;
}

/** A revoke marker: `{"auditId","by","reason","at","deadlineAt","value","releasedAt"?}`. */
export interface RevokeMarker {
  readonly auditId: string;
  readonly by: string;
  readonly reason: string;
  readonly at: number;
  /** Epoch ms by which the holder is asked to let go. */
  readonly deadlineAt: number;
  /** The value of the lock asked to let go. */
  readonly value: string;
  /** Epoch ms at which the holder released it, written by the holder's library. */
  readonly releasedAt?: number;
}

const text = (field: unknown) => (typeof field === "string" ? field : "");

function parseObject(json: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A tombstone's fields, or undefined for any other value. */
export function decodeTombstone(value: string): Tombstone | undefined {
  if (!value.startsWith(TOMBSTONE_PREFIX)) return undefined;
  const end = value.indexOf(":", TOMBSTONE_PREFIX.length);
  const fields = end === -1 ? undefined : parseObject(value.slice(end + 1));
  if (!fields || typeof fields.auditId !== "string") return undefined;
  const { auditId, by, reason, at, session } = fields;
  return {
    token: value.slice(TOMBSTONE_PREFIX.length, end),
    auditId,
    by: text(by),
    reason: text(reason),
    at: Number(at),
    ...(typeof session === "string" && { session }),
  };
}

/** A revoke marker's fields, or undefined for anything else. */
export function decodeRevokeMarker(json: string): RevokeMarker | undefined {
  const fields = parseObject(json);
  if (!fields || typeof fields.auditId !== "string" || typeof fields.value !== "string")
    return undefined;
  const { auditId, by, reason, at, deadlineAt, value, releasedAt } = fields;
  if (!Number.isFinite(deadlineAt)) return undefined;
  return {
    auditId,
    by: text(by),
    reason: text(reason),
    at: Number(at),
    deadlineAt: deadlineAt as number,
    value,
    ...(Number.isFinite(releasedAt) && { releasedAt: releasedAt as number }),
  };
}

/** `key` on every node at once; per node its text, or undefined (absent, refused, late, unavailable). */
async function readEverywhere(
  nodes: readonly RedlockNode[],
  key: string,
  timeoutMs: number,
): Promise<Array<string | undefined>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  const read = (node: RedlockNode) =>
    node.unavailableReason()
      ? undefined
      : node.driver.command("GET", [key]).then(
          (reply) => (typeof reply === "string" ? reply : undefined),
          () => undefined,
        );
  try {
    return await Promise.all(nodes.map((node) => Promise.race([read(node), late])));
  } finally {
    clearTimeout(timer);
  }
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
  const tombstones = (await readEverywhere(nodes, resource, timeoutMs)).flatMap((found) => {
    const tombstone = found?.startsWith(prefix) ? decodeTombstone(found) : undefined;
    return tombstone ? [tombstone] : [];
  });
  if (tombstones.length < quorumSize(nodes.length)) return undefined;
  const { auditId, by, reason } = tombstones[0]!;
  return new LockForceReleasedError({ resource, auditId, by, reason });
}

/** A revoke found on a majority: the error to raise, and each node's marker text (to record the release). */
export interface Revoke {
  readonly error: LockRevokedError;
  readonly markers: ReadonlyArray<string | undefined>;
}

/** The revoke of the lock `value` on `resource`, when a majority of nodes carries its marker. */
export async function readRevoke(
  nodes: readonly RedlockNode[],
  resource: string,
  value: string,
  timeoutMs: number,
): Promise<Revoke | undefined> {
  const markers = (await readEverywhere(nodes, revokeKey(resource), timeoutMs)).map((found) =>
    found !== undefined && decodeRevokeMarker(found)?.value === value ? found : undefined,
  );
  const carrying = markers.filter((marker) => marker !== undefined);
  if (carrying.length < quorumSize(nodes.length)) return undefined;
  const { auditId, by, reason, deadlineAt } = decodeRevokeMarker(carrying[0]!)!;
  return { error: new LockRevokedError({ resource, auditId, by, reason, deadlineAt }), markers };
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
    if (marker === undefined || !node || node.unavailableReason()) return;
    const recorded = JSON.stringify({ ...parseObject(marker), releasedAt: releasedAtMs });
    node.driver
      .command("SET", [revokeKey(resource), recorded, "KEEPTTL", "XX"])
      .catch(() => undefined);
  });
}
