import { permitOf } from "./guard";
import type { ExecutionStats, OwnerInfo, ReleaseResult } from "./types";

/** What a Lock asks of the Redlock instance that made it (Redlock implements it). */
export interface LockManager {
  release(lock: Lock): Promise<ReleaseResult>;
  extend(lock: Lock, duration: number): Promise<Lock>;
}

/** A lock held on a majority of nodes (node-redlock's shape, plus `fencingToken` and `owner`). */
export class Lock {
  constructor(
    readonly redlock: LockManager,
    readonly resources: string[],
    /** The random value (40 hex chars) stored under every resource on every node that voted for. */
    readonly value: string,
    readonly attempts: ReadonlyArray<Promise<ExecutionStats>>,
    /** Epoch ms at which validity ends, already net of the time taken and clock drift. */
    public expiration: number,
    /** With `fencing: true`: strictly greater than every earlier holder's token for these resources. */
    readonly fencingToken?: number,
    /** The owner entry written with the lock on each node (absent with `owner: false`). */
    readonly owner?: OwnerInfo,
  ) {}

  /** Remaining validity in ms (may be negative once expired). */
  get validityMs(): number {
    return this.expiration - Date.now();
  }

  /** The permit's index for a lock taken through `redlock.semaphore()`; undefined otherwise. */
  get permit(): number | undefined {
    return permitOf(this);
  }

  release(): Promise<ReleaseResult> {
    return this.redlock.release(this);
  }

  extend(duration: number): Promise<Lock> {
    return this.redlock.extend(this, duration);
  }
}
