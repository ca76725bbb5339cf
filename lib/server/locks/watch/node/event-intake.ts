/**
 * A node's notifications, from the subscriber to the node store (the informer's watch side, issue 33
 * part 1): the watcher (watcher.ts) hands each notification over; the shape table (shape-table.ts),
 * which learns from every read what may be a lock, decides whether its key is read; the change
 * queue coalesces the keys to read, and the reader (key-reader.ts) settles them in the store. The
 * same reader serves the listings' reads. Also the node card's figures of what notifications made
 * the console read (event-reads.ts).
 */
import type { EventReads } from "@/lib/api";
import type { Budget } from "../io/budget";
import { ChangeQueue, type ChangeQueueOptions } from "../store/change-queue";
import type { Clock } from "../io/clock";
import type { NodeConnections } from "../io/connections";
import { eventReadsOf } from "../events/event-reads";
import { KeyReader, type KeyReaderOptions } from "../store/key-reader";
import type { LockWatchOptions } from "./lock-watch";
import { ShapeTable } from "../events/shape-table";
import { Watcher, type WatcherOptions } from "../events/watcher";

/** The watcher's options but its connections (`connections`) and where notifications go (here). */
type WatcherPart = Omit<WatcherOptions, "subscriber" | "config" | "db" | "onNotified">;

export interface EventIntakeOptions extends WatcherPart {
  readonly connections: NodeConnections;
  readonly budget: Budget;
  readonly clock: Clock;
  /** Aborts when the watch closes: the queue's drain and the reads waiting for the budget stop. */
  readonly signal: AbortSignal;
  readonly store: KeyReaderOptions["store"];
  readonly shapes?: LockWatchOptions["shapes"];
  readonly onBrief?: KeyReaderOptions["onBrief"];
  /** The queue dropped every change it held: the node must be relisted. */
  readonly onDropped: ChangeQueueOptions["onDropped"];
}

export class EventIntake {
  readonly #options: EventIntakeOptions;
  readonly #shapes: ShapeTable;
  readonly #queue: ChangeQueue;
  /** Reads keys and settles them in the store: the queue's, and the listings' and polls'. */
  readonly reader: KeyReader;
  /** The node's subscriber: notifications, their configuration, the heartbeat's pings. */
  readonly watcher: Watcher;

  constructor(options: EventIntakeOptions) {
    this.#options = options;
    const { clock, signal, connections } = options;
    this.#shapes = new ShapeTable({ nowMs: () => clock.now(), ...options.shapes });
    this.#queue = new ChangeQueue({
      clock,
      signal,
      read: (keys) => this.reader.readChanged(keys),
      onDropped: options.onDropped,
    });
    this.reader = new KeyReader({
      readKeys: connections.readKeys,
      budget: options.budget,
      clock,
      signal,
      store: options.store,
      takeEvents: (name) => this.#queue.takeEvents(name),
      onBrief: options.onBrief,
      onRead: (name, isLock) => this.#shapes.recordRead(name, isLock),
    });
    this.watcher = new Watcher({
      subscriber: connections.subscriber,
      config: connections.commands,
      db: connections.db,
      address: options.address,
      patterns: options.patterns,
      enableKeyspaceEvents: options.enableKeyspaceEvents,
      restoreKeyspaceEvents: options.restoreKeyspaceEvents,
      clock,
      signal,
      onNotified: (name, key, event) => this.#notified(name, key, event),
      onLost: options.onLost,
      onReady: options.onReady,
      onChecked: options.onChecked,
    });
  }

  /** A notification: its key is read unless it cannot be a lock. */
  #notified(name: string, key: Buffer, event: string | null): void {
    // A key held, or whose read waits or runs, is read whatever its shape: its change must show.
    const held =
      this.#options.store.get(name) !== undefined ||
      this.#queue.has(name) ||
      this.reader.reading(name);
    if (event === null || this.#shapes.shouldRead(name, event, held))
      this.#queue.add(name, key, event);
  }

  /** Resolves once every notification published before the call is read: a pong follows them. */
  async caughtUp(): Promise<void> {
    await this.watcher.ping();
    await this.#queue.idle();
  }

  /**
   * The heartbeat's PING on the subscriber: resolves to when it was sent once the reads of the
   * notifications before it ended (null: none was sent).
   */
  async heartbeat(): Promise<number | null> {
    const sentAtMs = await this.watcher.heartbeat();
    if (sentAtMs !== null) await this.#queue.idle();
    return sentAtMs;
  }

  async close(): Promise<void> {
    this.#queue.close();
    await this.watcher.close();
  }

  /**
   * The node card's figures while notifications are on (else null): reads made and avoided, skipped
   * shapes and their expiry samples, the subscriptions' rates, how late a lock under a skipped
   * shape may show (`resyncLateByMs`: when samples go unread), the LOCK_MATCH suggestion.
   */
  status(resyncLateByMs: number): EventReads | null {
    if (this.watcher.notifications !== "on") return null;
    const { patterns, clock } = this.#options;
    const rates = this.watcher.subscriptionRates();
    return eventReadsOf(this.#shapes, patterns, rates, resyncLateByMs, clock.now());
  }
}
