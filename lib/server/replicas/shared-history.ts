import "server-only";
/**
 * One history for every replica on a state store. Each replica folds its own live index (the
 * timeline); what the fold emits comes here (`record`), never straight to the replica's readers:
 * - the writer (the lease's holder, lease.ts) numbers it above the last stored id and appends it
 *   with the fenced script (lua.ts): a writer whose lease passed to another writes nothing;
 * - a follower keeps it as pending (reconcile.ts), to write what the writer never stored if it
 *   takes over;
 * - every replica serves only what it reads back from the store (follow.ts), so ids and order are
 *   the store's, the same everywhere: a browser's Last-Event-ID means the same on every replica.
 * Failover: the lease lapses `leaseMs` after the writer's last renewal; followers try every
 * leaseMs / 4; the new writer reads the stream to its end, then writes its unmatched pending.
 */
import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import type { Transition } from "@/lib/api";
import { logger } from "../logger";
import { AS_OF_STREAM, TRANSITIONS_STREAM } from "../timeline/state-store";
import { Follower } from "./follow";
import { WRITER_LEASE_KEY, WriterLease, writerTagOf, type LeaseRole } from "./lease";
import { APPEND_SCRIPT } from "./lua";
import { Reconciler } from "./reconcile";

export const LAST_ID_KEY = "redlock-console:transitions:last-id";
/** A flush appends at most this many (a burst waits for the next flush). */
const FLUSH_MAX = 500;
/** Transitions buffered at most while the store does not answer; older ones become pending. */
const BUFFER_MAX = 10_000;
/** The as-of instant is written at most this often. */
const AS_OF_INTERVAL_MS = 1_000;
const RETRY_FLUSH_MS = 200;

export interface SharedHistoryOptions {
  readonly replicaId: string;
  readonly leaseMs: number;
  /** The transitions stream's approximate MAXLEN. */
  readonly maxLen: number;
  /** A transition read back from the store: served by this replica. */
  readonly accept: (transition: Transition) => void;
}

export interface ResumePoint {
  readonly transitions: string;
  readonly asOf: string;
  /** The last id restored at load. */
  readonly lastId: number;
  readonly skewMs: number;
}

export class SharedHistory {
  readonly #store: Redis;
  readonly #options: SharedHistoryOptions;
  readonly #lease: WriterLease;
  readonly #reconciler = new Reconciler();
  #follower: Follower | null = null;
  #writing: Extract<LeaseRole, { kind: "writer" }> | null = null;
  #buffer: Transition[] = [];
  #asOfMs: number | null = null;
  #asOfWrittenMs = 0;
  #nextId = 0;
  #flushing = false;
  #takingOver = false;
  #ticking = false;
  #closed = false;
  readonly #timers: Array<ReturnType<typeof setInterval>> = [];

  constructor(store: Redis, options: SharedHistoryOptions) {
    this.#store = store;
    this.#options = options;
    this.#lease = new WriterLease(store, options.replicaId, options.leaseMs);
  }

  /** Whether this replica writes the shared history now. */
  get historyWriter(): boolean {
    return this.#writing !== null && this.#lease.role.kind === "writer";
  }

  /** Takes part in the lease (the first tick awaited, so the first fold knows its role). */
  async joinLease(): Promise<void> {
    await this.#tickLease();
    const every = Math.max(250, Math.floor(this.#options.leaseMs / 4));
    this.#timers.push(setInterval(() => void this.#tickLease(), every));
    this.#timers.push(setInterval(() => void this.#flush(), RETRY_FLUSH_MS));
  }

  /** Follows the store from where the load ended. */
  follow(from: ResumePoint): void {
    this.#follower = new Follower(
      this.#store.duplicate({
        connectionName: "redlock-console:state-follow",
        commandTimeout: undefined,
      }),
      {
        entry: ({ transition, writer }) => {
          // Entries this replica wrote met no pending of its own.
          if (this.#writing === null || writer !== writerTagOf(this.#writing.token))
            this.#reconciler.stored(transition, Date.now());
          this.#options.accept(transition);
        },
        asOf: (asOfMs) => this.#reconciler.asOf(asOfMs),
      },
      from,
    );
    this.#follower.start();
  }

  /** The fold emitted `transition` (its id is this replica's fold order, not yet the shared one). */
  record(transition: Transition): void {
    if (this.#writing) {
      this.#buffer.push(transition);
      if (this.#buffer.length > BUFFER_MAX) this.#reconciler.pending(this.#buffer.shift()!);
      setImmediate(() => void this.#flush());
    } else {
      this.#reconciler.pending(transition);
    }
  }

  /** The replica watched every node completely until `nowMs` (written only by the writer). */
  markAsOf(nowMs: number): void {
    if (!this.#writing || nowMs - this.#asOfWrittenMs < AS_OF_INTERVAL_MS) return;
    this.#asOfWrittenMs = nowMs;
    this.#asOfMs = nowMs;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    await this.#flush();
    await this.#lease.resign().catch(() => {});
    await this.#follower?.close();
  }

  async #tickLease(): Promise<void> {
    // One tick at a time: a slow store must not start two takeovers.
    if (this.#closed || this.#ticking) return;
    this.#ticking = true;
    try {
      await this.#tickLeaseOnce();
    } finally {
      this.#ticking = false;
    }
  }

  async #tickLeaseOnce(): Promise<void> {
    const startedMs = performance.now();
    try {
      await this.#lease.tick();
    } catch (error) {
      logger.debug({ error: String(error) }, "history writer lease: store did not answer");
    }
    const role = this.#lease.role;
    if (role.kind === "writer" && this.#writing?.token !== role.token) await this.#takeover(role);
    else if (role.kind === "follower" && this.#writing) this.#stepDown("lease lapsed");
    this.#reconciler.prune(Date.now());
    const tookMs = performance.now() - startedMs;
    if (tookMs > this.#options.leaseMs / 2)
      logger.warn({ tookMs }, "history writer lease: a renewal took more than half the lease");
  }

  /** Reads the stream to its end, then writes what no writer stored (reconcile.ts's rule). */
  async #takeover(role: Extract<LeaseRole, { kind: "writer" }>): Promise<void> {
    this.#takingOver = true;
    try {
      if (this.#writing) this.#stepDown("new epoch");
      await this.#follower?.catchUp(this.#store);
      const due = this.#reconciler.takeover(Date.now());
      this.#buffer = [...due, ...this.#buffer];
      this.#nextId = Math.max(this.#nextId, (this.#follower?.lastId ?? 0) + 1, Date.now() * 1_000);
      this.#writing = role;
      logger.info(
        { epoch: role.epoch, replica: this.#options.replicaId, due: due.length },
        "history writer: this replica writes the shared history",
      );
    } catch (error) {
      logger.warn({ error: String(error) }, "history writer: catching up failed; trying again");
    } finally {
      this.#takingOver = false;
    }
    void this.#flush();
  }

  /** The store refused `role`'s append: its lease is gone, whatever this replica last heard. */
  #fenced(role: Extract<LeaseRole, { kind: "writer" }>): void {
    this.#lease.lost(role.token);
    if (this.#writing === role) this.#stepDown("fenced: the lease is no longer this replica's");
  }

  /** Another replica writes now: what this one did not store becomes pending. */
  #stepDown(why: string): void {
    logger.info({ why, replica: this.#options.replicaId }, "history writer: this replica follows");
    this.#writing = null;
    this.#asOfMs = null;
    for (const transition of this.#buffer.splice(0)) this.#reconciler.pending(transition);
  }

  async #flush(): Promise<void> {
    const role = this.#writing;
    if (!role || this.#flushing || this.#takingOver) return;
    if (this.#buffer.length === 0 && this.#asOfMs === null) return;
    this.#flushing = true;
    const batch = this.#buffer.splice(0, FLUSH_MAX);
    // As-of vouches for every transition folded before it: only with the buffer emptied.
    const asOfMs = this.#buffer.length === 0 ? this.#asOfMs : null;
    if (asOfMs !== null) this.#asOfMs = null;
    const firstId = this.#nextId;
    const pairs = batch.flatMap((transition, offset) => {
      const id = firstId + offset;
      return [String(id), JSON.stringify({ ...transition, id })];
    });
    let againInMs = RETRY_FLUSH_MS;
    try {
      const [outcome, lastId] = await APPEND_SCRIPT.run(
        this.#store,
        [WRITER_LEASE_KEY, TRANSITIONS_STREAM, AS_OF_STREAM, LAST_ID_KEY],
        [
          role.token,
          writerTagOf(role.token),
          String(this.#options.maxLen),
          asOfMs === null ? "" : String(asOfMs),
          ...pairs,
        ],
      );
      if (outcome === "ok") {
        this.#nextId = firstId + batch.length;
        againInMs = 0;
      } else {
        this.#buffer.unshift(...batch);
        if (outcome === "order") this.#nextId = Math.max(this.#nextId, Number(lastId) + 1);
        else this.#fenced(role);
      }
    } catch {
      // Kept for the next flush while the store is away.
      this.#buffer.unshift(...batch);
      if (asOfMs !== null) this.#asOfMs ??= asOfMs;
    } finally {
      this.#flushing = false;
    }
    if (this.#buffer.length > 0) setTimeout(() => void this.#flush(), againInMs).unref();
  }
}
