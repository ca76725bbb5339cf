import "server-only";
/**
 * The keyspace-notification side of a node's watch (the informer's watch): a dedicated subscriber
 * connection, subscribed by pattern to the lock patterns' and their auxiliary keys' keyspace channels
 * (subscriptions.ts, which also counts what each pattern delivers), whose
 * notifications name the keys to read again; and its heartbeat, a PING whose answer proves every
 * notification published before it has arrived. Subscriptions are made by hand, before a listing
 * scans: notifications published while the subscriber was away are lost, so a return means a relist.
 */
import { once } from "node:events";
import { auxiliaryKeyOf, RESERVED_PREFIX } from "@redlock-console/redlock";
import type { EventReads } from "@/lib/api";
import { compileGlob } from "../read/glob";
import type { Clock } from "./clock";
import type { ConfigClient, SubscriberConnection } from "./connections";
import { checkNotifications } from "./notify-config";
import { PatternCounts, subscriptionPatterns } from "./subscriptions";

/** How long a subscription waits for the subscriber connection before it counts as failed. */
const SUBSCRIBE_TIMEOUT_MS = 5_000;

export interface WatcherOptions {
  readonly subscriber: SubscriberConnection;
  /** The command connection, for notify-keyspace-events. */
  readonly config: ConfigClient;
  readonly address: string;
  readonly db: number;
  readonly patterns: readonly string[];
  readonly enableKeyspaceEvents: boolean;
  readonly clock: Clock;
  /** Aborts when the watch closes. */
  readonly signal: AbortSignal;
  /** A notification named `name` (`event`: its keyspace event; null: one that only marks it changed). */
  readonly onNotified: (name: string, key: Buffer, event: string | null) => void;
  /** The subscriber dropped while subscribed: what was published meanwhile is lost. */
  readonly onLost: () => void;
  /** The subscriber connection is (again) ready. */
  readonly onReady: () => void;
  /** The node's notify-keyspace-events was read: notifications are on or off. */
  readonly onChecked: (on: boolean) => void;
}

export class Watcher {
  readonly #options: WatcherOptions;
  readonly #matchers: ReadonlyArray<(key: string) => boolean>;
  /** Key patterns subscribed (without the channel prefix), and what each delivers. */
  readonly #subscriptions: readonly string[];
  readonly #counts: PatternCounts;
  #subscribed = false;
  #notifications: "unknown" | "on" | "off" = "unknown";
  /** Why the node is polled; null while notifications are on (or not checked yet). */
  #pollReason: string | null = null;

  constructor(options: WatcherOptions) {
    this.#options = options;
    this.#matchers = options.patterns.map(compileGlob);
    this.#subscriptions = subscriptionPatterns(options.patterns);
    this.#counts = new PatternCounts(`__keyspace@${options.db}__:`);
    const { subscriber } = options;
    subscriber.on("close", () => {
      const wasSubscribed = this.#subscribed;
      this.#subscribed = false;
      if (wasSubscribed) options.onLost();
    });
    subscriber.on("ready", () => options.onReady());
    subscriber.on("pmessageBuffer", (pattern: Buffer, channel: Buffer, event: Buffer) => {
      this.#counts.add(pattern, options.clock.now());
      this.#notified(channel, event);
    });
  }

  get subscribed(): boolean {
    return this.#subscribed;
  }

  get notifications(): "unknown" | "on" | "off" {
    return this.#notifications;
  }

  get pollReason(): string | null {
    return this.#pollReason;
  }

  /** Each key pattern subscribed, with the notifications per second it delivers. */
  subscriptionRates(): EventReads["subscriptions"] {
    return this.#counts.rates(this.#subscriptions, this.#options.clock.now());
  }

  /**
   * Before a listing scans: notifications checked (turned on when allowed) and, when on, the
   * subscriber subscribed, so every change from then on arrives as a notification. Resolves true
   * when it subscribed just now: what was published before went unseen.
   */
  async prepare(): Promise<boolean> {
    if (!(await this.#check()) || this.#subscribed) return false;
    await this.#subscribe();
    return true;
  }

  /** Reads (and may turn on) the node's notifications; off, the subscription is dropped. */
  async #check(): Promise<boolean> {
    const { config, enableKeyspaceEvents, address, subscriber } = this.#options;
    const check = await checkNotifications(config, enableKeyspaceEvents, address);
    this.#pollReason = check.on ? null : check.reason;
    if (!check.on && this.#subscribed) void subscriber.punsubscribe().catch(() => {});
    if (!check.on) this.#subscribed = false;
    this.#notifications = check.on ? "on" : "off";
    this.#options.onChecked(check.on);
    return check.on;
  }

  /** Subscribes to the lock patterns' and their auxiliary keys' keyspace channels. */
  async #subscribe(): Promise<void> {
    const { subscriber, clock, signal, db } = this.#options;
    if (subscriber.status !== "ready") {
      if (subscriber.status === "wait") void subscriber.connect().catch(() => {});
      const timeout = new AbortController();
      const cancel = clock.after(SUBSCRIBE_TIMEOUT_MS, () => timeout.abort());
      try {
        await once(subscriber, "ready", { signal: AbortSignal.any([signal, timeout.signal]) });
      } finally {
        cancel();
      }
    }
    const prefix = `__keyspace@${db}__:`;
    await subscriber.psubscribe(...this.#subscriptions.map((pattern) => prefix + pattern));
    this.#subscribed = true;
  }

  /** PINGs the subscriber: the answer follows every notification published before the PING. */
  ping(): Promise<unknown> {
    return this.#options.subscriber.ping();
  }

  /** A heartbeat: resolves to when its PING was sent once answered; null if it could not be. */
  async heartbeat(): Promise<number | null> {
    if (this.#options.subscriber.status !== "ready") return null;
    const sentAtMs = this.#options.clock.now();
    return this.ping().then(
      () => sentAtMs,
      () => null,
    );
  }

  close(): void {
    this.#options.subscriber.disconnect();
  }

  #notified(channel: Buffer, event: Buffer): void {
    // __keyspace@<db>__:<key> — the key's bytes follow the prefix.
    const key = channel.subarray(channel.indexOf(":") + 1);
    const name = key.toString("latin1");
    if (!name.startsWith(RESERVED_PREFIX)) {
      this.#options.onNotified(name, key, event.toString("latin1"));
      return;
    }
    // An auxiliary key (waiters, 1.x owner entry) changes its resource's row.
    const auxiliary = auxiliaryKeyOf(name);
    if (!auxiliary || auxiliary.kind === "fence") return;
    const resource = auxiliary.resource;
    if (this.#matchers.some((matches) => matches(resource)))
      this.#options.onNotified(resource, Buffer.from(resource, "latin1"), null);
  }
}
