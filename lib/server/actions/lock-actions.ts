import "server-only";
/**
 * Acquire, extend and release through the Redlock library, one attempt each (an operator wants an
 * answer now, not after retries). Failures become 409 when a node refused because the resource is
 * held, 503 when too few nodes answered to decide.
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
import { describeAttempts, refusedAsHeld } from "./describe-attempts";

export interface ActionDeps {
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
    return new ApiError(heldCode, message, { attempts });
  return new ApiError(
    "quorum_unavailable",
    `Too few nodes answered to reach a quorum: ${error.message}`,
    { attempts },
  );
}

/** `owner`: the lock's owner labels, naming the console and the operator (console-owner.ts). */
export async function acquireLock(
  deps: ActionDeps,
  request: AcquireRequest,
  owner: Record<string, string>,
): Promise<LockGrant> {
  const startMs = performance.now();
  try {
    const lock = await deps.redlock.acquire([...request.resources], request.ttlMs, {
      retryCount: 0,
      fencing: request.fencing ?? false,
      owner,
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

export async function extendLock(deps: ActionDeps, request: ExtendRequest): Promise<LockGrant> {
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
  deps: ActionDeps,
  request: ReleaseRequest,
): Promise<Omit<ReleaseResponse, "serverTime">> {
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
