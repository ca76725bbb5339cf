/**
 * node-redlock 5.0.0-beta.2 ships its types at dist/index.d.ts but its "exports" map has no "types"
 * condition, so TypeScript's bundler resolution cannot see them. The part the benchmark uses:
 */
declare module "redlock" {
  import type { Redis } from "ioredis";

  export interface Lock {
    readonly value: string;
    readonly attempts: ReadonlyArray<Promise<unknown>>;
  }

  export default class Redlock {
    constructor(
      clients: Iterable<Redis>,
      settings?: { retryCount?: number; retryDelay?: number; retryJitter?: number },
    );
    acquire(resources: string[], duration: number): Promise<Lock>;
    release(lock: Lock): Promise<unknown>;
    quit(): Promise<void>;
  }
}
