import "server-only";
/**
 * The timeline's output side: it numbers each transition the fold (timeline.ts) emits, keeps it in
 * the history and hands it on (metrics, the state store, event streams). It also takes back a state
 * store's transitions at start, keeping their ids where they are in order, so that a client resuming
 * after one of them gets what followed it. Ids start at this process's start time × 1000: above any
 * id of an earlier run (see transitionSchema.id). With a shared history (replicas on one state
 * store), what the fold emits is handed to `record` instead, and only what the store gives back
 * (`accept`) is kept and handed on, under the store's ids (lib/server/replicas/shared-history.ts).
 */
import { makeTransition, type Transition } from "@/lib/api";
import { describeLatin1Key } from "../locks/read/key-name";
import { History } from "./history";
import type { TransitionFields } from "./session-checks";

export type TransitionListener = (transition: Transition) => void;

export class TransitionLog {
  readonly history: History;
  readonly #onTransition: TransitionListener | undefined;
  readonly #record: TransitionListener | undefined;
  readonly #listeners = new Set<TransitionListener>();
  #nextId = Date.now() * 1_000;
  /** Transitions published by this process (restored ones not counted). */
  #published = 0;

  constructor(capacity: number, onTransition?: TransitionListener, record?: TransitionListener) {
    this.history = new History(capacity);
    this.#onTransition = onTransition;
    this.#record = record;
  }

  /** Whether this process has recorded any transition of its own yet. */
  get publishedAny(): boolean {
    return this.#published > 0;
  }

  /** Subscribes to every new transition; returns the unsubscribe. */
  subscribe(listener: TransitionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Keeps a store's transitions, oldest first, as history with their ids; an id out of order (not
   * above the one before, or not below this run's first) is renumbered after the one before.
   */
  restore(stored: readonly Transition[]): void {
    let previous = 0;
    for (const transition of stored) {
      const kept =
        Number.isSafeInteger(transition.id) &&
        transition.id > previous &&
        transition.id < this.#nextId;
      previous = kept ? transition.id : previous + 1;
      this.history.push({ ...transition, id: previous });
    }
    this.#nextId = Math.max(this.#nextId, previous + 1);
  }

  /**
   * Gives `fields` the next id and the resource's display name, then keeps it and hands it on, or
   * with a shared history records it there (its id then only says the fold's order).
   */
  publish(fields: TransitionFields): void {
    const named = describeLatin1Key(fields.resource);
    const transition = makeTransition({
      ...fields,
      id: this.#nextId++,
      resource: named.resource,
      resourceBase64: named.resourceBase64 ?? null,
    });
    this.#published += 1;
    if (this.#record) this.#record(transition);
    else this.accept(transition);
  }

  /** Keeps `transition` (numbered already) and hands it on. */
  accept(transition: Transition): void {
    this.history.push(transition);
    this.#onTransition?.(transition);
    for (const listener of this.#listeners) listener(transition);
  }
}
