/** Direct access to the five masters: write keys the console did not write, and check what it left. */
import { waitersKey } from "../../lib/redlock/keys";
import { Redis } from "ioredis";
import type { Stack } from "../stack-file";

export class Masters {
  readonly clients: Redis[];

  constructor(private readonly stack: Stack) {
    this.clients = stack.urls.map(
      (url) => new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 }),
    );
  }

  /** SET key value PX ttlMs on the nodes at `indexes` only. */
  async setOn(indexes: number[], key: string, value: string, ttlMs: number): Promise<void> {
    await Promise.all(indexes.map((index) => this.clients[index]!.set(key, value, "PX", ttlMs)));
  }

  /** The value of `key` on every node, in node order (null where absent). */
  async valuesOf(key: string): Promise<(string | null)[]> {
    return Promise.all(this.clients.map((client) => client.get(key)));
  }

  /** The owner entry 1.x wrote beside a lock (`redlock:owner:<key>`, still read), on every node. */
  async putOwner(
    key: string,
    entry: {
      value: string;
      labels: Record<string, string>;
      acquiredAt: number;
      extensions: number;
    },
    ttlMs: number,
  ): Promise<void> {
    const fields = {
      ...entry,
      labels: JSON.stringify(entry.labels),
      acquiredAt: String(entry.acquiredAt),
      extensions: String(entry.extensions),
    };
    await Promise.all(
      this.clients.map((client) =>
        client
          .multi()
          .hset(`redlock:owner:${key}`, fields)
          .pexpire(`redlock:owner:${key}`, ttlMs)
          .exec(),
      ),
    );
  }

  /** A contender registered as waiting for `key` (at `waitersKey(key)`), on every node, until `expiresAtMs`. */
  async putWaiter(
    key: string,
    waiter: { id: string; labels: Record<string, string>; since: number; session?: string },
    expiresAtMs: number,
  ): Promise<void> {
    const waiters = waitersKey(key);
    await Promise.all(
      this.clients.map((client) =>
        client
          .multi()
          .zadd(waiters, expiresAtMs, JSON.stringify(waiter))
          .pexpire(waiters, Math.max(1, expiresAtMs - Date.now()))
          .exec(),
      ),
    );
  }

  /** Deletes the keys and the owner entries and waiters the library keeps beside them. */
  async deleteWithOwnership(...keys: string[]): Promise<void> {
    await this.deleteEverywhere(
      ...keys.flatMap((key) => [key, `redlock:owner:${key}`, waitersKey(key)]),
    );
  }

  async deleteEverywhere(...keys: string[]): Promise<void> {
    await Promise.all(this.clients.map((client) => client.del(...keys)));
  }

  /** SIGSTOP the node's redis-server: it keeps its sockets but answers nothing. */
  pause(index: number): void {
    process.kill(this.stack.pids[index]!, "SIGSTOP");
  }

  resume(index: number): void {
    process.kill(this.stack.pids[index]!, "SIGCONT");
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.quit().catch(() => client.disconnect())));
  }
}
