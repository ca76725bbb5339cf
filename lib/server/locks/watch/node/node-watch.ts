import "server-only";
/**
 * One node of the live index, kept as client-go's informer keeps a resource: listed by a paced SCAN
 * (lister.ts), then followed by keyspace notifications (watcher.ts) whose keys wait, coalesced, in
 * the change queue to be read into the node store (only keys that may be locks: event-intake.ts);
 * any gap (subscriber or node dropped, restart, overflow) relists this node only (relist-loop.ts),
 * and a node without notifications is polled (poll-passes.ts). This class holds the watch's phase
 * (phase.ts) and moves it on the parts' events. Over 300 lines, still one job: it is only the
 * wiring between those parts (each its own file); the relist loop's wiring is the next to go.
 *
 * Reads go over the node's one command connection, in the order they were decided: a key read after
 * its notification arrived sees the write that caused it (Redis publishes during the write), and the
 * last read of a key is always the latest, so the index converges to what the node holds.
 * One job, the phase and the parts joined; a little over 300 lines because every part's callbacks
 * are wired here (each part's logic lives in its own file).
 */
import type { IndexMode, ListingReason, NodeIndex } from "@/lib/api";
import { createBudget, type Budget } from "../io/budget";
import { systemClock, type Clock } from "../io/clock";
import { connectionsOf, type NodeConnections, type WatchedServer } from "../io/connections";
import { EventIntake } from "./event-intake";
import { Lister } from "../list/lister";
import type { LockWatch, LockWatchOptions } from "./lock-watch";
import { NodeStore, type IndexedState } from "../store/node-store";
import * as phases from "../list/phase";
import type { TurnOn } from "../events/notify-config";
import { PollPasses } from "../list/poll-passes";
import { Reachability, type ReachabilityChange } from "./reachability";
import { RelistLoop } from "../list/relist-loop";
import type { Watcher } from "../events/watcher";

export interface NodeWatchOptions extends LockWatchOptions {
  /** The server followed: a single node, or one primary of a cluster node. */
  readonly node: WatchedServer;
  /** The node's budget: every SCAN and read draws from it. */
  readonly budget: Budget;
  /** @default systemClock */
  readonly clock?: Clock;
}

/** The subscriber is pinged this often: a pong proves every earlier notification arrived. */
const HEARTBEAT_MS = 1_000;
/**
 * Relists that heal a gap at the heal pace: a subscriber lost (CLIENT KILL, an output buffer over
 * its limit) used to be healed at the steady pace, ~10 s at 250,000 keys, and a lock taken in the
 * gap showed only when the SCAN reached it. The first listing ("start") keeps the steady pace.
 */
const HEAL_REASONS: ReadonlySet<ListingReason> = new Set([
  "reconnect",
  "overflow",
  "restart",
  "notifications",
]);
/**
 * A watched node's notify-keyspace-events is read this often (one CONFIG GET), unless the options
 * say otherwise: flags switched off at run time leave the subscriber silent, not disconnected.
 */
const NOTIFY_CHECK_MS = 10_000;
/** How long sync() waits for an unreachable node before it gives up on it. */
const SYNC_UNREACHABLE_WAIT_MS = 3_000;

export class NodeWatch implements LockWatch {
  readonly #options: NodeWatchOptions;
  readonly #clock: Clock;
  readonly #closing = new AbortController();
  readonly #store: NodeStore;
  readonly #intake: EventIntake;
  readonly #watcher: Watcher;
  readonly #lister: Lister;
  readonly #reachability: Reachability;
  readonly #relists: RelistLoop;
  readonly #passes: PollPasses;
  /** What a relist after a gap draws its SCAN from (healBudgetPerS). */
  readonly #healBudget: Budget;
  readonly #stopTimers: Array<() => void>;
  #phase: phases.WatchPhase;
  /** A flags check is on its way (one at a time, however slow the node answers). */
  #checkingFlags = false;

  constructor(options: NodeWatchOptions) {
    this.#options = options;
    const clock = (this.#clock = options.clock ?? systemClock);
    const connections = connectionsOf(options.node);
    const { maxKeys, shared, onChange, patterns, shapes } = options;
    this.#phase = phases.initialPhase(clock.now());
    const { budget, healBudgetPerS } = options;
    this.#healBudget =
      healBudgetPerS === undefined ? budget : createBudget(healBudgetPerS, budget.bytes.perS);
    this.#store = new NodeStore({ maxKeys, shared, onChange, nowMs: clock.now() });
    this.#intake = new EventIntake({
      connections,
      budget: options.budget,
      clock,
      signal: this.#closing.signal,
      store: this.#store,
      patterns,
      shapes,
      onBrief: options.onBrief,
      address: options.node.address,
      enableKeyspaceEvents: options.enableKeyspaceEvents,
      restoreKeyspaceEvents: options.restoreKeyspaceEvents,
      onDropped: (reason) => {
        this.#markGap(reason);
        this.#relists.request(reason);
      },
      onLost: () => this.#markGap("reconnect"),
      onReady: () => this.#subscriberReady(),
      onChecked: (on) => this.#dispatch({ type: "notificationsChecked", on }),
    });
    this.#watcher = this.#intake.watcher;
    this.#passes = new PollPasses({
      commands: connections.commands,
      budgetPerS: options.budget.perS,
      clock,
      signal: this.#closing.signal,
      read: (keys) => this.#intake.reader.read(keys),
    });
    this.#lister = this.#createLister(connections);
    this.#relists = this.#createRelistLoop();
    this.#reachability = new Reachability({
      client: connections.commands,
      clock,
      nodeTimeoutMs: options.nodeTimeoutMs,
      disconnected: () => phases.isDisconnected(this.#phase),
      onChange: (change) => this.#reachabilityChanged(change),
    });
    void this.#relists.run();
    this.#stopTimers = [
      clock.every(HEARTBEAT_MS, () => this.#heartbeat()),
      clock.every(options.resyncIntervalMs, () => this.#relists.request("resync")),
      clock.every(options.notifyCheckIntervalMs ?? NOTIFY_CHECK_MS, () => void this.#checkFlags()),
    ];
  }

  #createLister({ commands }: NodeConnections): Lister {
    return new Lister({
      client: commands,
      budget: this.#options.budget,
      scanBudget: (reason) =>
        reason === "poll"
          ? this.#passes.budget
          : HEAL_REASONS.has(reason)
            ? this.#healBudget
            : this.#options.budget,
      patterns: this.#options.patterns,
      clock: this.#clock,
      signal: this.#closing.signal,
      store: this.#store,
      read: (keys) => this.#intake.reader.read(keys),
      forget: (name) => this.#intake.reader.settle(name, null, this.#clock.now()),
      // A new subscription leaves unseen what was published before it: the listing is a relist.
      prepare: async (reason) =>
        (await this.#watcher.prepare()) && !phases.isGapReason(reason) ? "reconnect" : reason,
      onRestart: () => this.#markGap("restart"),
      onRelist: (reason) => {
        this.#markGap(reason);
        this.#options.onGap?.(phases.gapSinceMs(this.#phase) ?? this.#clock.now());
      },
    });
  }

  #createRelistLoop(): RelistLoop {
    return new RelistLoop({
      clock: this.#clock,
      signal: this.#closing.signal,
      address: this.#options.node.address,
      reachable: () => this.reachable,
      resyncWanted: () => this.#watcher.notifications === "on" && !this.#lister.progress,
      list: (reason) => this.#list(reason),
      retryReason: () => (phases.listedOnce(this.#phase) ? "reconnect" : "start"),
    });
  }

  get reachable(): boolean {
    return this.#phase.kind !== "down";
  }

  get truncated(): boolean {
    return this.#store.truncated;
  }

  get(key: string): IndexedState | undefined {
    return this.#store.get(key);
  }

  read(key: string): IndexedState | null | undefined {
    return this.reachable ? (this.#store.get(key) ?? null) : undefined;
  }

  keys(): IterableIterator<string> {
    return this.#store.keys();
  }

  mode(): IndexMode {
    return phases.modeOf(this.#phase);
  }

  /** Listed and followed, and nothing left out by the key cap: the index vouches for the node. */
  get complete(): boolean {
    return this.#following && !this.#store.truncated;
  }

  /** Listed, and followed since (watching or polling), whether or not the key cap left keys out. */
  get #following(): boolean {
    return this.#phase.kind === "watching" || this.#phase.kind === "polling";
  }

  status(): NodeIndex {
    const progress = this.#lister.progress;
    const last = this.#lister.last;
    return {
      mode: this.mode(),
      reason: this.#watcher.pollReason,
      asOf: phases.asOfMsOf(this.#phase),
      listing: progress && { ...progress },
      listedAt: last?.endedAtMs ?? null,
      listingMs: last ? last.endedAtMs - last.startedAtMs : null,
      lockKeys: this.#store.size,
      truncated: this.#store.truncated,
      skippedKeys: last?.skippedKeys ?? 0,
      budgetPerS: this.#options.budget.perS,
      polling:
        this.mode() === "polling" ? this.#passes.status(last, this.#options.patterns.length) : null,
      // A lock under a skipped shape whose sample went unread is found by the next resync's listing.
      eventReads: this.#intake.status(
        this.#options.resyncIntervalMs + (last ? last.endedAtMs - last.startedAtMs : 0),
      ),
    };
  }

  /**
   * Drops what expired. A polled node's wheel only names the keys due: without notifications an
   * extension made since the last pass is unseen, so they are read again (confirmExpiries) before
   * the console says anything ended.
   */
  sweep(nowMs: number): void {
    if (this.mode() !== "polling") this.#store.sweep(nowMs);
    else this.#store.sweep(nowMs, (names) => void this.#passes.confirmExpiries(names));
  }

  /**
   * Resolves once every change made on the node before the call is in the index: a pong on the
   * subscriber follows every notification published before it, then the reads they caused end.
   * Polling nodes resolve after their next complete pass. For tests and for callers that must see
   * their own writes; it costs one PING.
   */
  async sync(): Promise<void> {
    const startedAtMs = this.#clock.now();
    while (!this.#closing.signal.aborted) {
      // A node still connecting is waited for a while; one that stays down has nothing to sync.
      if (!this.reachable && this.#clock.now() - startedAtMs > SYNC_UNREACHABLE_WAIT_MS) return;
      if (this.mode() === "watching") {
        await this.#intake.caughtUp();
        if (this.mode() === "watching") return;
      } else if ((phases.asOfMsOf(this.#phase) ?? 0) >= startedAtMs && this.#following) {
        return;
      }
      await this.#clock.sleep(20);
    }
  }

  /** Reads `key` into the store now, paid from the budget (lock-watch.ts); nothing while down. */
  async reread(key: string): Promise<void> {
    if (this.reachable) await this.#intake.reader.readChanged([Buffer.from(key, "latin1")]);
  }

  /**
   * An admin turns the node's keyspace events on (the node card's action): only the flags it lacks.
   * Once set, the node is relisted with its subscriber, and leaves polling mode.
   */
  async turnOnKeyspaceEvents(): Promise<TurnOn> {
    const turned = await this.#watcher.turnOn();
    if (turned.ok && this.#watcher.notifications !== "on") this.#relists.request("reconnect");
    return turned;
  }

  async close(): Promise<void> {
    this.#closing.abort();
    for (const stop of this.#stopTimers) stop();
    this.#relists.wake();
    await this.#intake.close();
  }

  #dispatch(event: phases.WatchEvent): void {
    this.#phase = phases.nextPhase(this.#phase, event);
  }

  #markGap(reason: phases.GapReason): void {
    this.#dispatch({ type: "gap", reason, atMs: this.#clock.now() });
  }

  /** A (re)connected node is relisted; one that answers again needs no relist (nothing lost). */
  #reachabilityChanged(change: ReachabilityChange): void {
    this.#dispatch(
      change === "disconnected" ? { type: change, atMs: this.#clock.now() } : { type: change },
    );
    this.#options.onReachability();
    if (change === "connected")
      this.#relists.request(phases.listedOnce(this.#phase) ? "reconnect" : "start");
    if (change === "answered") this.#relists.wake();
  }

  /**
   * A subscriber back after a listing missed what was published meanwhile: relist. (Its first
   * connect happens inside a listing, which subscribes before it scans.)
   */
  #subscriberReady(): void {
    if (phases.listedOnce(this.#phase) && this.#watcher.notifications !== "off")
      this.#relists.request("reconnect");
  }

  #heartbeat(): void {
    this.#reachability.check();
    if (this.mode() !== "watching") return;
    void this.#intake.heartbeat().then((sentAtMs) => {
      if (sentAtMs !== null) this.#dispatch({ type: "caughtUp", sentAtMs });
    });
  }

  /**
   * A watched node whose flags lost what the index needs: a gap from when they were last seen whole
   * (the index may lack what changed since; not complete until the relist ends), and a relist, which
   * turns them back on when allowed or polls the node until they are back.
   */
  async #checkFlags(): Promise<void> {
    if (this.#checkingFlags || this.mode() !== "watching" || this.#lister.progress) return;
    this.#checkingFlags = true;
    try {
      const lostSinceMs = await this.#watcher.flagsLostSince();
      if (lostSinceMs === null || this.mode() !== "watching") return;
      this.#dispatch({ type: "gap", reason: "notifications", atMs: lostSinceMs });
      this.#relists.request("notifications");
    } finally {
      this.#checkingFlags = false;
    }
  }

  /** One listing (lister.ts), then what follows it: watching, a relist, or the next polling pass. */
  async #list(reason: ListingReason): Promise<void> {
    const listing =
      reason === "poll"
        ? await this.#passes.measured(() => this.#lister.list(reason))
        : await this.#lister.list(reason);
    const { startedAtMs, endedAtMs } = listing;
    const notificationsOn = this.#watcher.notifications === "on";
    const subscribed = this.#watcher.subscribed;
    this.#dispatch({ type: "listed", notificationsOn, subscribed, startedAtMs, endedAtMs });
    if (notificationsOn) {
      if (!subscribed) this.#relists.request("reconnect"); // the subscriber dropped during the listing
      return;
    }
    await this.#passes.waitForNext(listing);
    this.#relists.request("poll");
  }
}
