import "server-only";
/**
 * One node of the live index: list once, then watch (the informer pattern). The node's lock keys are
 * listed with a paced SCAN, then kept current from keyspace notifications received on a dedicated
 * subscriber connection; only the keys a notification names are read again, coalesced and in
 * chunks. Every gap (the subscriber or the node dropped, a restart, more changes than the budget can
 * read) triggers a paced relist of this node only, and a slow periodic resync heals anything else.
 * A node without notifications (and CONSOLE_ENABLE_KEYSPACE_EVENTS off) is polled: relisted in
 * paced passes. Every read draws from the node's budget (budget.ts).
 *
 * Reads go over the node's one command connection, in the order they were decided: a key read after
 * its notification arrived sees the write that caused it (Redis publishes during the write), and the
 * last read of a key is always the latest, so the index converges to what the node holds.
 */
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import type { IndexMode, ListingProgress, ListingReason, NodeIndex } from "@/lib/api";
import { auxiliaryKeyOf, RESERVED_PREFIX } from "@redlock-console/redlock";
import { logger, redactText } from "../../logger";
import type { NodeKeyState } from "../read/key-state";
import { compileGlob } from "../read/glob";
import { readLockKeys } from "../read/read-node";
import type { Budget } from "./budget";
import { briefHolds, ChangeQueue, READ_CHUNK_KEYS } from "./change-queue";
import { systemClock } from "./clock";
import { missingEventFlags, NEEDED_EVENT_FLAGS } from "./event-flags";
import { NodeStore, type IndexedState, type RemovalCause } from "./node-store";
import {
  asOfMsOf,
  gapSinceMs,
  initialPhase,
  isDisconnected,
  isGapReason,
  listedOnce,
  modeOf,
  nextPhase,
  type GapReason,
  type WatchEvent,
  type WatchPhase,
} from "./phase";

/** The server a watch follows: a single node, or one primary of a cluster node. */
export interface WatchedServer {
  /** host:port, no credentials (for logs). */
  readonly address: string;
  readonly client: Redis;
  /** A primary of a Redis Cluster: its keys span slots (read-node.ts reads them accordingly). */
  readonly inCluster?: boolean;
}

export interface NodeWatchOptions {
  readonly node: WatchedServer;
  readonly patterns: readonly string[];
  readonly budget: Budget;
  readonly resyncIntervalMs: number;
  readonly enableKeyspaceEvents: boolean;
  /** A node that does not answer a PING within this long counts as down (a paused or hung node). */
  readonly nodeTimeoutMs: number;
  /** Lock keys kept per node at most. */
  readonly maxKeys: number;
  /**
   * The node's state for `key` (latin1 of its bytes) changed; null: it holds nothing now, and
   * `cause` tells why (the keyspace event that removed it, when one came).
   */
  readonly onChange: (key: string, state: IndexedState | null, cause?: RemovalCause) => void;
  /**
   * The instances of a key name and of its value already held for another node, when equal: five
   * nodes holding one lock then share one string of each, not five.
   */
  readonly shared: (name: string, value: string) => { name: string; value: string };
  /** The node became reachable or unreachable: every row's view of it changes. */
  readonly onReachability: () => void;
  /**
   * Values that came and went between two reads of `key` on this node (`set` events whose value the
   * read no longer found): holds too short to be seen, counted, not shown.
   */
  readonly onBrief?: (key: string, holds: number) => void;
  /** A relist after a gap begins: changes made since `sinceMs` may have been missed. */
  readonly onGap?: (sinceMs: number) => void;
}

/** Keys per SCAN call at most: each call is bounded work on the node. */
const SCAN_COUNT_MAX = 1_000;
/** The subscriber is pinged this often: a pong proves every earlier notification arrived. */
const HEARTBEAT_MS = 1_000;
/** A polling pass starts at most this often, however small the keyspace. */
const POLL_MIN_INTERVAL_MS = 1_000;
/** How long a listing waits for the subscriber connection before it counts as failed. */
const SUBSCRIBE_TIMEOUT_MS = 5_000;
/** How long sync() waits for an unreachable node before it gives up on it. */
const SYNC_UNREACHABLE_WAIT_MS = 3_000;
/** After a failed listing (node errors mid-way), wait this long before relisting. */
const RELIST_BACKOFF_MS = 1_000;

export class NodeWatch {
  readonly #options: NodeWatchOptions;
  readonly #client: Redis;
  readonly #subscriber: Redis;
  readonly #patterns: ReadonlyArray<(key: string) => boolean>;
  readonly #db: number;
  readonly #store: NodeStore;
  readonly #queue: ChangeQueue;
  #phase: WatchPhase = initialPhase(Date.now());
  /** False while the node leaves a PING unanswered past the node timeout: it hangs. */
  #responsive = true;
  #pingSentAt: number | null = null;
  #notifications: "unknown" | "on" | "off" = "unknown";
  #pollReason: string | null = null;
  #listing: ListingProgress | null = null;
  #listedAt: number | null = null;
  #listingMs: number | null = null;
  #runId: string | null = null;
  #wanted: ListingReason | null = null;
  #subscribed = false;
  #wake: () => void = () => {};
  #timers: NodeJS.Timeout[] = [];
  readonly #closing = new AbortController();

  constructor(options: NodeWatchOptions) {
    this.#options = options;
    this.#client = options.node.client;
    this.#db = this.#client.options.db ?? 0;
    this.#patterns = options.patterns.map(compileGlob);
    this.#store = new NodeStore({
      maxKeys: options.maxKeys,
      shared: options.shared,
      onChange: options.onChange,
      nowMs: Date.now(),
    });
    this.#queue = new ChangeQueue({
      clock: systemClock,
      signal: this.#closing.signal,
      read: async (keys) => {
        await this.#options.budget.take(keys.length, this.#closing.signal);
        await this.#read(keys);
      },
      onDropped: (reason) => {
        this.#markGap(reason);
        this.#request(reason);
      },
    });
    this.#subscriber = this.#client.duplicate({
      connectionName: "redlock-console:watch",
      // Subscriptions are remade by hand on every connect, then the node is relisted: no blind spot.
      autoResubscribe: false,
      commandTimeout: undefined,
      lazyConnect: true,
    });
    this.#subscriber.on("error", () => {}); // the command connection logs the node's errors
    this.#subscriber.on("close", () => this.#subscriberLost());
    // A subscriber that comes back after a listing missed what was published meanwhile: relist.
    // (Its first connect happens inside a listing, which subscribes before it scans.)
    this.#subscriber.on("ready", () => {
      if (listedOnce(this.#phase) && this.#notifications !== "off") this.#request("reconnect");
    });
    this.#subscriber.on("pmessageBuffer", (_pattern: Buffer, channel: Buffer, event: Buffer) =>
      this.#notified(channel, event),
    );
    this.#client.on("ready", () => this.#nodeUp());
    this.#client.on("close", () => this.#nodeDown());
    // After construction: the index wires this watch up before hearing from it.
    if (this.#client.status === "ready") queueMicrotask(() => this.#nodeUp());
    void this.#run();
    this.#timers.push(
      setInterval(() => this.#heartbeat(), HEARTBEAT_MS),
      setInterval(() => this.#request("resync"), options.resyncIntervalMs),
    );
  }

  get reachable(): boolean {
    return this.#phase.kind !== "down";
  }

  get truncated(): boolean {
    return this.#store.truncated;
  }

  get size(): number {
    return this.#store.size;
  }

  /** What the node holds under `key` as far as the index knows (expired states dropped by sweep()). */
  get(key: string): IndexedState | undefined {
    return this.#store.get(key);
  }

  /** What the node holds under `key`: its state, null (absent) or undefined (unreachable). */
  read(key: string): IndexedState | null | undefined {
    return this.reachable ? (this.#store.get(key) ?? null) : undefined;
  }

  keys(): IterableIterator<string> {
    return this.#store.keys();
  }

  mode(): IndexMode {
    return modeOf(this.#phase);
  }

  /** True once the index holds the whole node: listed at least once, and no gap since. */
  get complete(): boolean {
    return this.#phase.kind === "watching" || this.#phase.kind === "polling";
  }

  status(): NodeIndex {
    return {
      mode: this.mode(),
      reason: this.#pollReason,
      asOf: asOfMsOf(this.#phase),
      listing: this.#listing && { ...this.#listing },
      listedAt: this.#listedAt,
      listingMs: this.#listingMs,
      lockKeys: this.#store.size,
      budgetPerS: this.#options.budget.perS,
    };
  }

  /** Drops the states whose TTL ran out by `nowMs`: the node no longer holds them. */
  sweep(nowMs: number): void {
    this.#store.sweep(nowMs);
  }

  /**
   * Resolves once every change made on the node before the call is in the index: a pong on the
   * subscriber follows every notification published before it, then the reads they caused end.
   * Polling nodes resolve after their next complete pass. For tests and for callers that must see
   * their own writes; it costs one PING.
   */
  async sync(): Promise<void> {
    const startedAt = Date.now();
    while (!this.#closing.signal.aborted) {
      // A node still connecting is waited for a while; one that stays down has nothing to sync.
      if (!this.reachable && Date.now() - startedAt > SYNC_UNREACHABLE_WAIT_MS) return;
      if (this.mode() === "watching") {
        await this.#subscriber.ping();
        await this.#queue.idle();
        if (this.mode() === "watching") return;
      } else if ((asOfMsOf(this.#phase) ?? 0) >= startedAt && this.complete) {
        return;
      }
      await sleep(20);
    }
  }

  async close(): Promise<void> {
    this.#closing.abort();
    for (const timer of this.#timers) clearInterval(timer);
    this.#queue.close();
    this.#wake();
    this.#subscriber.disconnect();
  }

  #dispatch(event: WatchEvent): void {
    this.#phase = nextPhase(this.#phase, event);
  }

  #nodeUp(): void {
    if (!isDisconnected(this.#phase)) return;
    this.#responsive = true;
    this.#dispatch({ type: "connected" });
    this.#options.onReachability();
    this.#request(listedOnce(this.#phase) ? "reconnect" : "start");
  }

  #nodeDown(): void {
    if (isDisconnected(this.#phase)) return;
    this.#dispatch({ type: "disconnected", atMs: Date.now() });
    this.#options.onReachability();
  }

  /**
   * A paused or hung node keeps its connections open but answers nothing: a PING on the command
   * connection every heartbeat, unanswered past the node timeout, marks it down until it answers.
   * Nothing is lost meanwhile (notifications wait in the socket), so its return needs no relist.
   */
  #checkLiveness(): void {
    if (isDisconnected(this.#phase)) return;
    const nowMs = Date.now();
    const setResponsive = (responsive: boolean) => {
      if (this.#responsive === responsive) return;
      this.#responsive = responsive;
      this.#dispatch({ type: responsive ? "answered" : "unanswered" });
      this.#options.onReachability();
      if (responsive) this.#wake();
    };
    if (this.#pingSentAt !== null) {
      if (nowMs - this.#pingSentAt > this.#options.nodeTimeoutMs) setResponsive(false);
      return;
    }
    this.#pingSentAt = nowMs;
    // The command timeout rejects a PING the node leaves unanswered: it hangs (or is paused).
    this.#client
      .ping()
      .then(
        () => setResponsive(true),
        () => setResponsive(false),
      )
      .finally(() => (this.#pingSentAt = null));
  }

  #markGap(reason: GapReason): void {
    this.#dispatch({ type: "gap", reason, atMs: Date.now() });
  }

  #subscriberLost(): void {
    // Notifications published while the subscriber was away are lost: the node is relisted on return.
    if (this.#subscribed) this.#markGap("reconnect");
    this.#subscribed = false;
  }

  /** Subscribes to the lock patterns' and the library's keyspace channels (before a listing scans). */
  async #subscribe(): Promise<void> {
    if (this.#subscriber.status !== "ready") {
      if (this.#subscriber.status === "wait") void this.#subscriber.connect().catch(() => {});
      await once(this.#subscriber, "ready", {
        signal: AbortSignal.any([this.#closing.signal, AbortSignal.timeout(SUBSCRIBE_TIMEOUT_MS)]),
      });
    }
    const prefix = `__keyspace@${this.#db}__:`;
    const patterns = [...this.#options.patterns, `${RESERVED_PREFIX}*`].map((p) => prefix + p);
    await this.#subscriber.psubscribe(...patterns);
    this.#subscribed = true;
  }

  /**
   * Whether the node publishes the notifications the index needs, turning them on when allowed.
   * Without them the node is polled: correct, slower, within the same budget.
   */
  async #checkNotifications(): Promise<boolean> {
    let flags: string;
    try {
      const reply = (await this.#client.config("GET", "notify-keyspace-events")) as string[];
      flags = reply[1] ?? "";
    } catch (error) {
      // Managed services often rename CONFIG away: without it the flags cannot be known.
      this.#setNotifications(false);
      this.#pollReason = `CONFIG GET notify-keyspace-events failed (${redactText(String(error))}): polling`;
      return false;
    }
    let missing = missingEventFlags(flags);
    if (missing.length > 0 && this.#options.enableKeyspaceEvents) {
      try {
        await this.#client.config("SET", "notify-keyspace-events", flags + missing.join(""));
        logger.info(
          { node: this.#options.node.address, flags: flags + missing.join("") },
          "turned on keyspace notifications (CONSOLE_ENABLE_KEYSPACE_EVENTS)",
        );
        missing = [];
      } catch (error) {
        this.#pollReason = `notify-keyspace-events is "${flags}" and CONFIG SET failed (${redactText(String(error))}): polling`;
      }
    } else if (missing.length > 0) {
      this.#pollReason = `notify-keyspace-events is "${flags}", lacking ${missing.join("")} (needs ${NEEDED_EVENT_FLAGS}); set CONSOLE_ENABLE_KEYSPACE_EVENTS=true or configure the node: polling`;
    }
    const on = missing.length === 0;
    if (on) this.#pollReason = null;
    this.#setNotifications(on);
    return on;
  }

  #setNotifications(on: boolean): void {
    if (!on && this.#subscribed) void this.#subscriber.punsubscribe().catch(() => {});
    if (!on) this.#subscribed = false;
    this.#notifications = on ? "on" : "off";
    this.#dispatch({ type: "notificationsChecked", on });
  }

  #notified(channel: Buffer, event: Buffer): void {
    // __keyspace@<db>__:<key> — the key's bytes follow the prefix.
    const prefixLength = channel.indexOf(":") + 1;
    const key = channel.subarray(prefixLength);
    let name = key.toString("latin1");
    if (name.startsWith(RESERVED_PREFIX)) {
      // An auxiliary key (waiters, 1.x owner entry) changes its resource's row.
      const auxiliary = auxiliaryKeyOf(name);
      if (!auxiliary || auxiliary.kind === "fence") return;
      name = auxiliary.resource;
      if (!this.#patterns.some((matches) => matches(name))) return;
      this.#queue.add(name, Buffer.from(name, "latin1"), null);
      return;
    }
    this.#queue.add(name, key, event.toString("latin1"));
  }

  /**
   * Reads `keys` and applies what the node holds; returns the locks found. A key a notification
   * named costs one from the budget; a key a listing's SCAN returned was paid for by the SCAN.
   */
  async #read(keys: readonly Buffer[]): Promise<number> {
    const readAtMs = Date.now();
    const { states } = await readLockKeys(
      this.#client,
      keys,
      readAtMs,
      this.#options.node.inCluster,
    );
    let found = 0;
    keys.forEach((key, index) => {
      const state = states[index] ?? null;
      if (state) found += 1;
      this.#apply(key.toString("latin1"), state, readAtMs);
    });
    return found;
  }

  #apply(name: string, read: NodeKeyState | null, readAtMs: number): void {
    const { cause, sets } = this.#queue.takeEvents(name);
    const brief = briefHolds(sets, read, this.#store.get(name)?.value);
    if (brief > 0) this.#options.onBrief?.(name, brief);
    if (read === null) this.#store.remove(name, cause ?? "unknown");
    else this.#store.put(name, read, readAtMs);
  }

  #request(reason: ListingReason): void {
    if (this.#closing.signal.aborted) return;
    // A resync or poll never replaces a pending relist after a gap.
    if (this.#wanted && isGapReason(this.#wanted) && !isGapReason(reason)) return;
    if (reason === "resync" && (this.#notifications !== "on" || this.#listing)) return;
    this.#wanted = reason;
    this.#wake();
  }

  #heartbeat(): void {
    this.#checkLiveness();
    if (this.mode() !== "watching" || this.#subscriber.status !== "ready") return;
    const sentAt = Date.now();
    this.#subscriber.ping().then(
      async () => {
        await this.#queue.idle();
        this.#dispatch({ type: "caughtUp", sentAtMs: sentAt });
      },
      () => {},
    );
  }

  async #run(): Promise<void> {
    while (!this.#closing.signal.aborted) {
      const reason = this.#wanted;
      if (reason === null || !this.reachable) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        continue;
      }
      this.#wanted = null;
      try {
        await this.#list(reason);
      } catch (error) {
        if (this.#closing.signal.aborted) return;
        logger.warn(
          { node: this.#options.node.address, reason, error: redactText(String(error)) },
          "listing failed; retrying",
        );
        this.#listing = null;
        this.#wanted ??= listedOnce(this.#phase) ? "reconnect" : "start";
        await sleep(RELIST_BACKOFF_MS, undefined, { signal: this.#closing.signal }).catch(() => {});
      }
    }
  }

  /** One paced listing: SCAN every pattern, read what it returns, then sweep what it did not see. */
  async #list(reason: ListingReason): Promise<void> {
    const budget = this.#options.budget;
    const signal = this.#closing.signal;
    await budget.take(3, signal);
    // Subscribed before the scan begins, so every change from here on arrives as a notification.
    if ((await this.#checkNotifications()) && !this.#subscribed) {
      if (!isGapReason(reason)) reason = "reconnect";
      await this.#subscribe();
    }
    const [info, keysTotal] = await Promise.all([
      this.#client.info("server"),
      this.#client.dbsize(),
    ]);
    const runId = /run_id:(\w+)/.exec(info)?.[1] ?? null;
    if (this.#runId !== null && runId !== this.#runId) {
      // Restarted or failed over: what it held may be gone. Forget it now, relist from nothing.
      reason = "restart";
      this.#markGap("restart");
      for (const name of [...this.#store.keys()]) this.#apply(name, null, Date.now());
    }
    this.#runId = runId;
    if (isGapReason(reason)) {
      this.#markGap(reason);
      this.#options.onGap?.(gapSinceMs(this.#phase) ?? Date.now());
    }
    this.#store.beginGeneration();
    const startedAt = Date.now();
    const progress: ListingProgress = {
      reason,
      startedAt,
      keysVisited: 0,
      keysTotal,
      locksFound: 0,
      fraction: keysTotal > 0 ? 0 : null,
    };
    const keysToVisit = keysTotal * this.#options.patterns.length;
    this.#listing = progress;
    const count = Math.max(10, Math.min(SCAN_COUNT_MAX, budget.burst));
    for (const pattern of this.#options.patterns) {
      let cursor = "0";
      do {
        await budget.take(count, signal);
        const [next, batch] = await this.#client.scanBuffer(
          cursor,
          "MATCH",
          pattern,
          "COUNT",
          count,
        );
        cursor = next.toString();
        progress.keysVisited += count;
        if (keysToVisit > 0) progress.fraction = Math.min(0.99, progress.keysVisited / keysToVisit);
        const keys = batch.filter((key) => !key.toString("latin1").startsWith(RESERVED_PREFIX));
        for (let start = 0; start < keys.length; start += READ_CHUNK_KEYS)
          progress.locksFound += await this.#read(keys.slice(start, start + READ_CHUNK_KEYS));
      } while (cursor !== "0");
    }
    // What the listing did not see, and no notification touched since it began, is gone.
    for (const name of this.#store.unseen()) this.#apply(name, null, Date.now());
    const endedAt = Date.now();
    this.#listing = null;
    this.#listedAt = endedAt;
    this.#listingMs = endedAt - startedAt;
    const notificationsOn = this.#notifications === "on";
    // Subscribed before the listing began: whatever changed since reached the index as notifications.
    this.#dispatch({
      type: "listed",
      notificationsOn,
      subscribed: this.#subscribed,
      startedAtMs: startedAt,
      endedAtMs: endedAt,
    });
    if (notificationsOn) {
      if (!this.#subscribed) this.#request("reconnect"); // the subscriber dropped during the listing
    } else {
      const waitMs = POLL_MIN_INTERVAL_MS - (endedAt - startedAt);
      if (waitMs > 0) await sleep(waitMs, undefined, { signal }).catch(() => {});
      this.#request("poll");
    }
  }
}
