import "server-only";
/**
 * One node of the live index, kept as client-go's informer keeps a resource: listed by a paced SCAN
 * (lister.ts), then followed by keyspace notifications (watcher.ts) whose keys wait, coalesced, in
 * the change queue to be read into the node store (only keys that may be locks: shape-table.ts); any gap (subscriber or node dropped, restart,
 * overflow) relists this node only (relist-loop.ts), and a node without notifications is polled.
 * This class holds the watch's phase (phase.ts) and moves it on the parts' events.
 *
 * Reads go over the node's one command connection, in the order they were decided: a key read after
 * its notification arrived sees the write that caused it (Redis publishes during the write), and the
 * last read of a key is always the latest, so the index converges to what the node holds.
 */
import type { IndexMode, ListingReason, NodeIndex } from "@/lib/api";
import type { Budget } from "./budget";
import { ChangeQueue, READ_CHUNK_KEYS } from "./change-queue";
import { systemClock, type Clock } from "./clock";
import { connectionsOf, type NodeConnections, type WatchedServer } from "./connections";
import { eventReadsOf } from "./event-reads";
import { KeyReader } from "./key-reader";
import { Lister } from "./lister";
import { LivenessProbe } from "./liveness-probe";
import type { LockWatch, LockWatchOptions } from "./lock-watch";
import { NodeStore, type IndexedState } from "./node-store";
import * as phases from "./phase";
import type { TurnOn } from "./notify-config";
import { passCommandsUsec, PollPace } from "./poll-pace";
import { RelistLoop } from "./relist-loop";
import { ShapeTable } from "./shape-table";
import { Watcher } from "./watcher";

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
/** A polling pass starts at most this often, however small the keyspace. */
const POLL_MIN_INTERVAL_MS = 1_000;
/** How long sync() waits for an unreachable node before it gives up on it. */
const SYNC_UNREACHABLE_WAIT_MS = 3_000;

export class NodeWatch implements LockWatch {
  readonly #options: NodeWatchOptions;
  readonly #clock: Clock;
  readonly #closing = new AbortController();
  readonly #store: NodeStore;
  readonly #shapes: ShapeTable;
  readonly #queue: ChangeQueue;
  readonly #reader: KeyReader;
  readonly #watcher: Watcher;
  readonly #lister: Lister;
  readonly #probe: LivenessProbe;
  readonly #relists: RelistLoop;
  readonly #commands: NodeConnections["commands"];
  readonly #pace: PollPace;
  /** Keys the wheel named for a confirming read (polled node) whose read has not ended. */
  readonly #confirming = new Set<string>();
  readonly #stopTimers: Array<() => void>;
  #phase: phases.WatchPhase;

  constructor(options: NodeWatchOptions) {
    this.#options = options;
    const clock = (this.#clock = options.clock ?? systemClock);
    const connections = connectionsOf(options.node);
    this.#commands = connections.commands;
    this.#pace = new PollPace(options.budget.perS);
    const { maxKeys, shared, onChange } = options;
    this.#phase = phases.initialPhase(clock.now());
    this.#store = new NodeStore({ maxKeys, shared, onChange, nowMs: clock.now() });
    this.#shapes = new ShapeTable({ nowMs: () => clock.now(), ...options.shapes });
    this.#queue = new ChangeQueue({
      clock,
      signal: this.#closing.signal,
      read: (keys) => this.#reader.readChanged(keys),
      onDropped: (reason) => {
        this.#markGap(reason);
        this.#relists.request(reason);
      },
    });
    this.#reader = this.#createReader(connections);
    this.#watcher = this.#createWatcher(connections);
    this.#lister = this.#createLister(connections);
    this.#probe = new LivenessProbe({
      client: connections.commands,
      clock,
      nodeTimeoutMs: options.nodeTimeoutMs,
      onChange: (responsive) => this.#probed(responsive),
    });
    this.#relists = this.#createRelistLoop();
    connections.commands.on("ready", () => this.#connected());
    connections.commands.on("close", () => this.#disconnected());
    // After construction: the index wires this watch up before hearing from it.
    if (connections.commands.status === "ready") queueMicrotask(() => this.#connected());
    void this.#relists.run();
    this.#stopTimers = [
      clock.every(HEARTBEAT_MS, () => this.#heartbeat()),
      clock.every(options.resyncIntervalMs, () => this.#relists.request("resync")),
    ];
  }

  #createReader({ readKeys }: NodeConnections): KeyReader {
    return new KeyReader({
      readKeys,
      budget: this.#options.budget,
      clock: this.#clock,
      signal: this.#closing.signal,
      store: this.#store,
      takeEvents: (name) => this.#queue.takeEvents(name),
      onBrief: this.#options.onBrief,
      onRead: (name, isLock) => this.#shapes.recordRead(name, isLock),
    });
  }

  #createWatcher({ subscriber, commands, db }: NodeConnections): Watcher {
    return new Watcher({
      subscriber,
      config: commands,
      address: this.#options.node.address,
      db,
      patterns: this.#options.patterns,
      enableKeyspaceEvents: this.#options.enableKeyspaceEvents,
      restoreKeyspaceEvents: this.#options.restoreKeyspaceEvents,
      clock: this.#clock,
      signal: this.#closing.signal,
      onNotified: (name, key, event) => this.#notified(name, key, event),
      onLost: () => this.#markGap("reconnect"),
      onReady: () => this.#subscriberReady(),
      onChecked: (on) => this.#dispatch({ type: "notificationsChecked", on }),
    });
  }

  #createLister({ commands }: NodeConnections): Lister {
    return new Lister({
      client: commands,
      budget: this.#options.budget,
      scanBudget: (reason) => (reason === "poll" ? this.#pace.budget : this.#options.budget),
      patterns: this.#options.patterns,
      clock: this.#clock,
      signal: this.#closing.signal,
      store: this.#store,
      read: (keys) => this.#reader.read(keys),
      forget: (name) => this.#reader.settle(name, null, this.#clock.now()),
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
      polling: this.mode() === "polling" ? this.#paceStatus() : null,
      eventReads:
        this.#watcher.notifications === "on"
          ? eventReadsOf(
              this.#shapes,
              this.#options.patterns,
              this.#watcher.subscriptionRates(),
              // A lock under a skipped shape is found by the next resync's listing, at worst its end.
              this.#options.resyncIntervalMs + (last ? last.endedAtMs - last.startedAtMs : 0),
              this.#clock.now(),
            )
          : null,
    };
  }

  /** A polled node's pace, and how late a change shows: one pass over its keys, a second at least. */
  #paceStatus(): NonNullable<NodeIndex["polling"]> {
    const pace = this.#pace.report();
    const last = this.#lister.last;
    const keysToVisit = (last?.keysTotal ?? 0) * this.#options.patterns.length;
    const passMs = Math.max(
      POLL_MIN_INTERVAL_MS,
      (keysToVisit / pace.perS) * 1_000,
      last ? last.endedAtMs - last.startedAtMs : 0,
    );
    return { ...pace, changesWithinMs: Math.round(passMs) };
  }

  /**
   * Drops what expired. A polled node's wheel only names the keys due: without notifications an
   * extension made since the last pass is unseen, so they are read again (confirmExpiries) before
   * the console says anything ended.
   */
  sweep(nowMs: number): void {
    if (this.mode() !== "polling") this.#store.sweep(nowMs);
    else this.#store.sweep(nowMs, (names) => void this.#confirmExpiries(names));
  }

  /** Reads the keys whose expiry is due on a polled node, paid from its polling pace. */
  async #confirmExpiries(names: string[]): Promise<void> {
    const keys = names.filter((name) => !this.#confirming.has(name));
    for (const name of keys) this.#confirming.add(name);
    try {
      for (let start = 0; start < keys.length; start += READ_CHUNK_KEYS) {
        const chunk = keys.slice(start, start + READ_CHUNK_KEYS);
        await this.#pace.budget.take(chunk.length, this.#closing.signal);
        await this.#reader.read(chunk.map((name) => Buffer.from(name, "latin1")));
      }
    } catch {
      // Unread (node gone, watch closing): the next pass reads them, or forgets them if gone.
    } finally {
      for (const name of keys) this.#confirming.delete(name);
    }
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
        await this.#watcher.ping();
        await this.#queue.idle();
        if (this.mode() === "watching") return;
      } else if ((phases.asOfMsOf(this.#phase) ?? 0) >= startedAtMs && this.#following) {
        return;
      }
      await this.#clock.sleep(20);
    }
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
    this.#queue.close();
    this.#relists.wake();
    await this.#watcher.close();
  }

  #dispatch(event: phases.WatchEvent): void {
    this.#phase = phases.nextPhase(this.#phase, event);
  }

  #markGap(reason: phases.GapReason): void {
    this.#dispatch({ type: "gap", reason, atMs: this.#clock.now() });
  }

  #connected(): void {
    if (!phases.isDisconnected(this.#phase)) return;
    this.#probe.reset();
    this.#dispatch({ type: "connected" });
    this.#options.onReachability();
    this.#relists.request(phases.listedOnce(this.#phase) ? "reconnect" : "start");
  }

  #disconnected(): void {
    if (phases.isDisconnected(this.#phase)) return;
    this.#dispatch({ type: "disconnected", atMs: this.#clock.now() });
    this.#options.onReachability();
  }

  #probed(responsive: boolean): void {
    this.#dispatch({ type: responsive ? "answered" : "unanswered" });
    this.#options.onReachability();
    if (responsive) this.#relists.wake();
  }

  /**
   * A subscriber back after a listing missed what was published meanwhile: relist. (Its first
   * connect happens inside a listing, which subscribes before it scans.)
   */
  #subscriberReady(): void {
    if (phases.listedOnce(this.#phase) && this.#watcher.notifications !== "off")
      this.#relists.request("reconnect");
  }

  /** A notification: its key is read unless it cannot be a lock (shape-table.ts). */
  #notified(name: string, key: Buffer, event: string | null): void {
    // A key held, or whose read waits or runs, is read whatever its shape: its change must show.
    const held =
      this.#store.get(name) !== undefined || this.#queue.has(name) || this.#reader.reading(name);
    if (event === null || this.#shapes.shouldRead(name, event, held))
      this.#queue.add(name, key, event);
  }

  #heartbeat(): void {
    if (!phases.isDisconnected(this.#phase)) this.#probe.check();
    if (this.mode() !== "watching") return;
    void this.#watcher.heartbeat().then(async (sentAtMs) => {
      if (sentAtMs === null) return;
      await this.#queue.idle();
      this.#dispatch({ type: "caughtUp", sentAtMs });
    });
  }

  /** One listing (lister.ts), then what follows it: watching, a relist, or the next polling pass. */
  async #list(reason: ListingReason): Promise<void> {
    const usecBefore = reason === "poll" ? await this.#passUsec() : null;
    const { startedAtMs, endedAtMs, keysVisited } = await this.#lister.list(reason);
    if (usecBefore !== null) {
      const usecAfter = await this.#passUsec();
      if (usecAfter !== null)
        this.#pace.measured(keysVisited, usecAfter - usecBefore, endedAtMs - startedAtMs);
    }
    const notificationsOn = this.#watcher.notifications === "on";
    const subscribed = this.#watcher.subscribed;
    this.#dispatch({ type: "listed", notificationsOn, subscribed, startedAtMs, endedAtMs });
    if (notificationsOn) {
      if (!subscribed) this.#relists.request("reconnect"); // the subscriber dropped during the listing
      return;
    }
    const waitMs = POLL_MIN_INTERVAL_MS - (endedAtMs - startedAtMs);
    if (waitMs > 0) await this.#clock.sleep(waitMs, this.#closing.signal).catch(() => {});
    this.#relists.request("poll");
  }

  /** The master's CPU spent on pass commands so far (poll-pace.ts); null when INFO fails. */
  async #passUsec(): Promise<number | null> {
    try {
      return passCommandsUsec(await this.#commands.info("commandstats"));
    } catch {
      return null;
    }
  }
}
