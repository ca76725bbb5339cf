import "server-only";
/**
 * Acquire, extend and release through the Redlock library, one attempt each (an operator wants an
 * answer now, not after retries). Failures become 409 when a node refused because the resource is
 * held, 503 when too few nodes answered to decide. Extend and release act only on a lock this
 * console acquired (409 not_console_lock otherwise, before any node is touched): another holder's
 * lock is taken by force-release, which tombstones it and tells its holder, and only a holder's own
 * release lifts a tombstone of its value.
 */
import type {
  AcquireRequest,
  ExtendRequest,
  LockGrant,
  ReleaseRequest,
  ReleaseResponse,
} from "@/lib/api";
import { RESERVED_PREFIX } from "@/lib/api";
import Redlock, { isExecutionError, Lock, type ExecutionError } from "@redlock-console/redlock";
import { ApiError } from "../errors";
import type { ConsoleNode } from "../node-registry";
import { consoleInstanceId, isConsoleLock } from "./console-owner";
import { describeAttempts, refusedAsHeld } from "./describe-attempts";

/** What the playground's lock calls use: the console's own Redlock and the nodes it locks on. */
export interface LockDeps {
  readonly redlock: Redlock;
  readonly nodes: readonly ConsoleNode[];
}

export function assertNotReserved(resources: readonly string[]): void {
  const reserved = resources.find((resource) => resource.startsWith(RESERVED_PREFIX));
  if (reserved !== undefined) {
    throw new ApiError(
      "reserved_resource",
      `Resources under "${RESERVED_PREFIX}" are the library's auxiliary keys, never locks.`,
    );
  }
}

export const NOT_CONSOLE_LOCK_MESSAGE =
  "This lock was not acquired by this console: release it with Force release, which reserves it until its holder lets go.";

function assertConsoleLock(deps: LockDeps, value: string): void {
  if (!isConsoleLock(deps.redlock, value))
    throw new ApiError("not_console_lock", NOT_CONSOLE_LOCK_MESSAGE);
}

const elapsedSince = (startMs: number) => Math.round((performance.now() - startMs) * 100) / 100;

async function grantOf(
  lock: Lock,
  ttlMs: number,
  startMs: number,
  nodes: readonly ConsoleNode[],
): Promise<LockGrant> {
  const now = Date.now();
  return {
    resources: lock.resources,
    value: lock.value,
    ttlMs,
    validityMs: Math.max(0, Math.floor(lock.expiration - now)),
    expiration: Math.floor(lock.expiration),
    fencingToken: lock.fencingToken ?? null,
    latencyMs: elapsedSince(startMs),
    attempts: await describeAttempts(lock.attempts, nodes),
  };
}

async function failure(
  error: ExecutionError,
  heldCode: "resource_locked" | "lock_not_held",
  message: string,
  nodes: readonly ConsoleNode[],
): Promise<ApiError> {
  const attempts = await describeAttempts(error.attempts, nodes);
  if (attempts.length === 0 || (await refusedAsHeld(error.attempts)))
    return new ApiError(heldCode, message, { details: { attempts } });
  return new ApiError(
    "quorum_unavailable",
    `Too few nodes answered to reach a quorum: ${error.message}`,
    { details: { attempts } },
  );
}

/** `owner`: the lock's owner labels, naming the console and the operator (console-owner.ts). */
export async function acquireLock(
  deps: LockDeps,
  request: AcquireRequest,
  owner: Record<string, string>,
): Promise<LockGrant> {
  const startMs = performance.now();
  try {
    const lock = await deps.redlock.acquire([...request.resources], request.ttlMs, {
      retryCount: 0,
      fencing: request.fencing ?? false,
      owner: { ...owner, console: consoleInstanceId(deps.redlock) },
    });
    return await grantOf(lock, request.ttlMs, startMs, deps.nodes);
  } catch (error) {
    if (!isExecutionError(error)) throw error;
    throw await failure(
      error,
      "resource_locked",
      "The resource is held by another value on enough nodes: not acquired.",
      deps.nodes,
    );
  }
}

export async function extendLock(deps: LockDeps, request: ExtendRequest): Promise<LockGrant> {
  assertConsoleLock(deps, request.value);
  const startMs = performance.now();
  const handle = deps.redlock.lockByValue([...request.resources], request.value);
  try {
    const lock = await deps.redlock.extend(handle, request.ttlMs, { retryCount: 0 });
    return await grantOf(lock, request.ttlMs, startMs, deps.nodes);
  } catch (error) {
    if (!isExecutionError(error)) throw error;
    throw await failure(
      error,
      "lock_not_held",
      "The lock is no longer held with this value on a majority: not extended.",
      deps.nodes,
    );
  }
}

export async function releaseLock(
  deps: LockDeps,
  request: ReleaseRequest,
): Promise<Omit<ReleaseResponse, "serverTime">> {
  assertConsoleLock(deps, request.value);
  const startMs = performance.now();
  const handle = deps.redlock.lockByValue([...request.resources], request.value);
  const result = await deps.redlock.release(handle);
  // The route reports every node's delete (it waits for every vote anyway, for `attempts`), not
  // only the majority's that `release` resolves with.
  const settled = await result.settled;
  return {
    resources: [...request.resources],
    releasedCount: settled.releasedCount,
    latencyMs: elapsedSince(startMs),
    attempts: await describeAttempts(result.attempts, deps.nodes),
  };
}
