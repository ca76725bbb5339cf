import "server-only";
/**
 * This console as one replica of several on a state store (CONSOLE_STATE_URL): its id, its part
 * in the shared history (shared-history.ts) and in the force-release marks (force-mark-share.ts).
 * Started in order: the store proven none of the lock nodes (open-state-store.ts), the lease
 * joined (so the first fold knows its role), the history loaded, then followed.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Transition } from "@/lib/api";
import { logger } from "../logger";
import type { ConsoleNode } from "../node-registry";
import type { ForceMarkEvent } from "../timeline/force-marks";
import { openStateStore } from "../timeline/open-state-store";
import type { LoadedHistory, StateStore } from "../timeline/state-store";
import { shareForceMarks, type ForceMarkShare } from "./force-mark-share";
import { SharedHistory } from "./shared-history";

/** `/api/health`'s `replica`. */
export interface ReplicaStatus {
  readonly id: string;
  /** Whether this replica writes the history now (without a state store: its own, always). */
  readonly historyWriter: boolean;
}

/** The replica id when CONSOLE_REPLICA_ID is unset: host, process and a random part (a restart is another replica). */
export const defaultReplicaId = (): string =>
  `${hostname()
    .replace(/[^\w.-]/g, "-")
    .slice(0, 40)}:${process.pid}:${randomBytes(3).toString("hex")}`;

export interface ReplicaOptions {
  readonly id: string;
  readonly store: StateStore;
  readonly nodes: readonly ConsoleNode[];
  readonly historyMax: number;
  readonly leaseMs: number;
  readonly nodeDeadlineMs: number;
  /** A transition of the shared history, to serve. */
  readonly accept: (transition: Transition) => void;
  /** The history as loaded at start: kept before anything followed is accepted. */
  readonly restore: (loaded: LoadedHistory) => void;
  /** Another replica's force-release mark. */
  readonly applyForceMark: (event: ForceMarkEvent) => void;
}

export class Replica {
  readonly id: string;
  readonly #options: ReplicaOptions;
  readonly #history: SharedHistory;
  #marks: ForceMarkShare | null = null;
  /** Off when the store was refused or did not answer at start: history is this process's own. */
  #shared = true;

  constructor(options: ReplicaOptions) {
    this.id = options.id;
    this.#options = options;
    this.#history = new SharedHistory(options.store.client, {
      replicaId: options.id,
      leaseMs: options.leaseMs,
      maxLen: options.historyMax,
      accept: options.accept,
    });
  }

  get shared(): boolean {
    return this.#shared;
  }

  status(): ReplicaStatus {
    return { id: this.id, historyWriter: !this.#shared || this.#history.historyWriter };
  }

  /**
   * Opens the store, joins the lease, loads and restores the history, then follows it; resolves
   * false when the history is this process's own (the store refused, or silent at start).
   */
  async start(): Promise<boolean> {
    const { store, nodes, historyMax, nodeDeadlineMs } = this.#options;
    try {
      const loaded = await openStateStore(store, nodes, historyMax, nodeDeadlineMs, () =>
        this.#history.joinLease(),
      );
      if (!loaded) {
        this.#shared = false;
        return false;
      }
      this.#options.restore(loaded);
      this.#marks = shareForceMarks(store.client, this.id, this.#options.applyForceMark);
      const lastId = loaded.transitions.at(-1)?.id ?? 0;
      this.#history.follow({ ...loaded.resumeFrom, lastId, skewMs: loaded.skewMs });
      return true;
    } catch (error) {
      this.#shared = false;
      // A lease this replica may hold would keep every other replica from writing.
      await this.#history.close().catch(() => {});
      logger.warn(
        { error: String(error) },
        "state store unreadable: this replica keeps its own history in memory until restarted",
      );
      return false;
    }
  }

  /** The fold emitted `transition`. */
  record(transition: Transition): void {
    if (this.#shared) this.#history.record(transition);
    else this.#options.accept(transition);
  }

  markAsOf(nowMs: number): void {
    if (this.#shared) this.#history.markAsOf(nowMs);
  }

  async shareForceMark(event: ForceMarkEvent): Promise<void> {
    await this.#marks?.share(event);
  }

  async close(): Promise<void> {
    await this.#history.close();
    await this.#marks?.close();
  }
}
