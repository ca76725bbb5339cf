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
import { compileGlob } from "../../read/glob";
import type { Clock } from "../io/clock";
import type { ConfigClient, SubscriberConnection } from "../io/connections";
import { logger, redactText } from "../../../logger";
import {
  lackingReason,
  readEventFlags,
  refusedReason,
  turnOnEventFlags,
  type TurnOn,
} from "./notify-config";
import { PatternCounts, subscriptionPatterns } from "./subscriptions";

/** How long a subscription waits for the subscriber connection before it counts as failed. */
const SUBSCRIBE_TIMEOUT_MS = 5_000;
/** After CONFIG SET was refused, it is not tried again for this long, doubling up to an hour. */
const SET_RETRY_FIRST_MS = 60_000;
const SET_RETRY_MAX_MS = 3_600_000;

export interface WatcherOptions {
  readonly subscriber: SubscriberConnection;
  /** The command connection, for notify-keyspace-events. */
  readonly config: ConfigClient;
  readonly address: string;
  readonly db: number;
  readonly patterns: readonly string[];
  readonly enableKeyspaceEvents: boolean;
  /** On close, put back the notify-keyspace-events this console changed (CONSOLE_RESTORE_KEYSPACE_EVENTS). */
  readonly restoreKeyspaceEvents?: boolean;
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
  /** The flags before this console added some; null while it changed none. */
  #changedFrom: string | null = null;
  /** When the flags were last read whole, before that read was sent (clock ms); null: never. */
  #wholeSeenAtMs: number | null = null;
  /** The flags lost some the index needs while it was watched: its reason says so. */
  #lostWhileWatched = false;
  /** CONFIG SET refusals in a row; while backing off, the refusal said (and not retried). */
  #refusals = 0;
  #refused: { readonly reason: string; readonly retryAtMs: number } | null = null;

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

  /**
   * While watched, reads the flags again: a CONFIG SET at run time can take away what the index
   * needs, and a subscriber that hears nothing looks like a quiet node. Resolves to when the flags
   * were last seen whole when some are lacking now (notifications published since then may be
   * lost: the node needs a relist, whose prepare() turns them back on when allowed, or polls);
   * null when they are whole, or cannot be read (nothing new is known then).
   */
  async flagsLostSince(): Promise<number | null> {
    const { config, clock, address } = this.#options;
    if (this.#notifications !== "on") return null;
    const sentAtMs = clock.now();
    const read = await readEventFlags(config);
    if (!read.ok) return null;
    if (lackingReason(read.flags) === null) {
      this.#wholeSeenAtMs = sentAtMs;
      return null;
    }
    this.#lostWhileWatched = true;
    logger.warn(
      { node: address, flags: read.flags },
      "notify-keyspace-events lost flags the index needs while watched: relisting",
    );
    return this.#wholeSeenAtMs ?? sentAtMs;
  }

  /** Reads (and may turn on) the node's notifications; off, the subscription is dropped. */
  async #check(): Promise<boolean> {
    const { subscriber, clock } = this.#options;
    const sentAtMs = clock.now();
    const offReason = await this.#offReason();
    const on = offReason === null;
    if (on) this.#wholeSeenAtMs = sentAtMs;
    const reason =
      on || !this.#lostWhileWatched
        ? offReason
        : `notify-keyspace-events was changed at run time while watched: ${offReason}`;
    if (on) this.#lostWhileWatched = false;
    this.#pollReason = reason;
    if (!on && this.#subscribed) void subscriber.punsubscribe().catch(() => {});
    if (!on) this.#subscribed = false;
    this.#notifications = on ? "on" : "off";
    this.#options.onChecked(on);
    return on;
  }

  /** Why notifications are off (null: on), turning them on when allowed and not backing off. */
  async #offReason(): Promise<string | null> {
    const { config, enableKeyspaceEvents, clock } = this.#options;
    const read = await readEventFlags(config);
    if (!read.ok) return read.reason;
    const lacking = lackingReason(read.flags);
    if (lacking === null || !enableKeyspaceEvents) return lacking;
    if (this.#refused && clock.now() < this.#refused.retryAtMs) return this.#refused.reason;
    const turned = await this.turnOn(read.flags);
    return turned.ok ? null : this.#refused!.reason;
  }

  /**
   * CONFIG SETs the flags the node lacks (`flags`: as just read; unset: read now). Refused, it says
   * so once (logged, and as the poll reason with the command to run) and backs off.
   */
  async turnOn(flags?: string): Promise<TurnOn> {
    const { config, address, clock } = this.#options;
    if (flags === undefined) {
      const read = await readEventFlags(config);
      if (!read.ok) return { ok: false, error: read.reason, command: "" };
      flags = read.flags;
    }
    const turned = await turnOnEventFlags(config, flags);
    if (turned.ok) {
      if (turned.from !== turned.to) {
        this.#changedFrom ??= turned.from;
        logger.info({ node: address, flags: turned.to }, "turned on keyspace notifications");
      }
      this.#refusals = 0;
      this.#refused = null;
      return turned;
    }
    const retryInMs = Math.min(SET_RETRY_MAX_MS, SET_RETRY_FIRST_MS * 2 ** this.#refusals);
    if (this.#refusals === 0)
      logger.warn(
        { node: address, error: turned.error, run: turned.command },
        "CONFIG SET notify-keyspace-events refused: polling",
      );
    this.#refusals += 1;
    const reason = refusedReason(flags, turned, retryInMs);
    this.#refused = { reason, retryAtMs: clock.now() + retryInMs };
    this.#pollReason = reason;
    return turned;
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

  /** Drops the subscriber; with restoreKeyspaceEvents, first puts back the flags this console changed. */
  async close(): Promise<void> {
    this.#options.subscriber.disconnect();
    const { restoreKeyspaceEvents, config, address } = this.#options;
    if (!restoreKeyspaceEvents || this.#changedFrom === null) return;
    try {
      await config.config("SET", "notify-keyspace-events", this.#changedFrom);
      logger.info({ node: address, flags: this.#changedFrom }, "restored notify-keyspace-events");
    } catch (error) {
      logger.warn(
        { node: address, error: redactText(String(error)) },
        "could not restore notify-keyspace-events",
      );
    }
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
