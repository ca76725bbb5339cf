import type { Redis } from "ioredis";
import { quorumSize } from "./quorum";
import { isNodeRedisClient, type Client } from "./client-adapter";

/** The release script publishes here (redis.pcall, so an ACL without channels never fails a release). */
export const RELEASED_CHANNEL_PREFIX = "redlock:released:";

/**
 * Waking every contender at the same instant makes them split the nodes between them, so that
 * nobody wins and all sleep out retryDelay (measured: 5x fewer handoffs/s than sleeping, 16
 * contenders). Each retries at a random point of this window instead: the first usually wins, and
 * one that collides has cleaned up before the next arrives.
 */
const WAKE_SPREAD_MS = 5;

/** How long a channel stays subscribed after its last waiter left: contention comes in bursts. */
const LINGER_MS = 1_000;

type Wake = () => void;

/**
 * One lazily created subscriber connection to one node (`client.duplicate()`), subscribed to the
 * release channel of each resource someone waits on, and only while they wait (plus LINGER_MS).
 * With no channel left it disconnects, so an idle Redlock holds no extra connection.
 */
class NodeSubscriber {
  private subscriber: Redis | undefined;
  private readonly waiters = new Map<string, Set<Wake>>();
  private readonly lingering = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly client: Redis,
    private readonly keyPrefix: string,
  ) {}

  add(resource: string, wake: Wake): void {
    const channel = RELEASED_CHANNEL_PREFIX + this.keyPrefix + resource;
    const linger = this.lingering.get(channel);
    if (linger) {
      clearTimeout(linger);
      this.lingering.delete(channel);
    }
    let set = this.waiters.get(channel);
    if (!set) {
      set = new Set();
      this.waiters.set(channel, set);
      if (!linger)
        void this.connection()
          .subscribe(channel)
          .catch(() => undefined);
    }
    set.add(wake);
  }

  remove(resource: string, wake: Wake): void {
    const channel = RELEASED_CHANNEL_PREFIX + this.keyPrefix + resource;
    const set = this.waiters.get(channel);
    if (!set?.delete(wake) || set.size > 0) return;
    this.waiters.delete(channel);
    const timer = setTimeout(() => this.unsubscribe(channel), LINGER_MS);
    timer.unref();
    this.lingering.set(channel, timer);
  }

  close(): void {
    for (const timer of this.lingering.values()) clearTimeout(timer);
    this.lingering.clear();
    this.waiters.clear();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }

  private unsubscribe(channel: string): void {
    this.lingering.delete(channel);
    if (this.waiters.has(channel)) return;
    if (this.waiters.size === 0 && this.lingering.size === 0) return this.close();
    void this.subscriber?.unsubscribe(channel).catch(() => undefined);
  }

  private connection(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.client.duplicate();
    // Errors surface as reconnects (ioredis re-subscribes on its own); a waiter then just sleeps.
    subscriber.on("error", () => undefined);
    subscriber.on("message", (channel: string) => {
      const set = this.waiters.get(channel);
      if (set) for (const wake of [...set]) wake();
    });
    this.subscriber = subscriber;
    return subscriber;
  }
}

/** What timers/promises' sleep rejects with, so an aborted wait looks the same either way. */
function abortError(signal: AbortSignal): Error {
  const error = new DOMException("The operation was aborted", "AbortError");
  Object.defineProperty(error, "cause", { value: signal.reason as unknown });
  return error;
}

/** ioredis single-node clients only: node-redis subscribes another way, and a Cluster per shard. */
const canSubscribe = (client: Client): client is Redis =>
  !isNodeRedisClient(client) &&
  !client.isCluster &&
  typeof (client as { duplicate?: unknown }).duplicate === "function";

/**
 * Lets a contender that lost an acquire wake up as soon as the lock is released, instead of
 * sleeping out `retryDelay`: the release script PUBLISHes on `redlock:released:<key>` on each node
 * where it deleted the key. A Cluster client, a node-redis client, or one without `duplicate()`,
 * just sleeps.
 */
export class ReleaseWaiter {
  private readonly subscribers: NodeSubscriber[];
  /** Nodes that must report the release: waking at the first would retry into the rest's keys. */
  private readonly needed: number;

  constructor(clients: readonly Client[]) {
    this.subscribers = clients
      .filter(canSubscribe)
      .map((client) => new NodeSubscriber(client, client.options.keyPrefix ?? ""));
    this.needed = Math.min(quorumSize(clients.length), this.subscribers.length);
  }

  /**
   * Resolves after `delayMs`, or as soon as a majority of nodes reported a release of one of
   * `resources` (the lock is free there, so a retry can win) plus a random spread of at most
   * WAKE_SPREAD_MS, or
   * rejects when `signal` aborts. Without a subscriber-capable node it is a plain sleep.
   */
  wait(resources: readonly string[], delayMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      let done = false;
      const finish = (error?: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.subscribers.forEach((subscriber, index) => {
          for (const resource of resources) subscriber.remove(resource, wakes[index]!);
        });
        if (error === undefined) resolve();
        else reject(error as Error);
      };
      let heard = 0;
      const wakes = this.subscribers.map(() => {
        let counted = false;
        return () => {
          if (counted) return;
          counted = true;
          heard += 1;
          if (heard !== this.needed) return;
          clearTimeout(timer);
          timer = setTimeout(finish, Math.random() * WAKE_SPREAD_MS);
        };
      });
      const onAbort = () => finish(abortError(signal!));
      let timer = setTimeout(() => finish(), delayMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.subscribers.forEach((subscriber, index) => {
        for (const resource of resources) subscriber.add(resource, wakes[index]!);
      });
    });
  }

  /** Drops every subscriber connection (Redlock.quit). */
  close(): void {
    for (const subscriber of this.subscribers) subscriber.close();
  }
}
