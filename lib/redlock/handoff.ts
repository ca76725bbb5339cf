import { randomBytes } from "node:crypto";
import { quorumSize } from "./quorum";
import type { RedisDriver, Subscriber } from "./driver";
import type { RedlockNode } from "./node";

/** Each Redlock instance listens on its own channel: `redlock:wake:<16 hex>`. */
export const WAKE_CHANNEL_PREFIX = "redlock:wake:";

type Wake = () => void;

/** The two halves of a node list (see wakeNodes). */
export interface WakeSplit {
  readonly waking: ReadonlySet<RedlockNode>;
  readonly quiet: ReadonlySet<RedlockNode>;
}

/** Per node list: its address order and its split while every node takes commands, made once. */
const splits = new WeakMap<
  readonly RedlockNode[],
  { ordered: readonly RedlockNode[]; allUp: WakeSplit }
>();

function split(
  nodes: readonly RedlockNode[],
  ordered: readonly RedlockNode[],
  up: boolean,
): WakeSplit {
  const needed = quorumSize(nodes.length);
  const waking = new Set<RedlockNode>();
  for (const node of ordered)
    if (waking.size < needed && (!up || !node.unavailableReason())) waking.add(node);
  for (const node of ordered) if (waking.size < needed) waking.add(node);
  return { waking, quiet: new Set(nodes.filter((node) => !waking.has(node))) };
}

/**
 * The nodes that list waiters and wake them (`waking`), and the rest (`quiet`, whose releases only
 * delete): the first majority, in address order (`host:port`), of the nodes that can take commands
 * now, topped up in that order with the rest when fewer can. Address order, not configuration
 * order: processes that list the same nodes in different orders still pick the same ones. A waiter
 * lists itself on these only and each release wakes from these only: a majority is all a wait
 * needs to hear from, and listing, looking up and removing waiters on every other node would be
 * Redis commands that wake nobody sooner. A woken wait retries once all but one of them released
 * (ReleaseWaiter), so one slow, paused or differently seen wake node does not cost the handoff. When the waiter's
 * and the releaser's views differ by more (nodes just went down or came back, or are named
 * differently), the wait hears from too few and keeps its sleeping retry, as when a message is
 * lost, until its next failed attempt lists it where the wakes now come from.
 */
export function wakeNodes(nodes: readonly RedlockNode[]): WakeSplit {
  let known = splits.get(nodes);
  if (!known) {
    const ordered = [...nodes].sort((a, b) =>
      a.address < b.address ? -1 : a.address > b.address ? 1 : 0,
    );
    known = { ordered, allUp: split(nodes, ordered, false) };
    splits.set(nodes, known);
  }
  // The common case, every node up, allocates nothing (release() asks on every call).
  if (nodes.every((node) => !node.unavailableReason())) return known.allUp;
  return split(nodes, known.ordered, true);
}

/** How long the first contended wait of an instance waits for its subscriptions, at most. */
const READY_TIMEOUT_MS = 1_000;

/**
 * One subscriber connection to one node (RedisDriver.subscriber), made at the instance's first
 * contended acquire and kept for its life (Redlock.quit closes it), subscribed to the instance's
 * wake channel. A release on that node publishes a wait id there when it hands the resource to that
 * wait (release.ts, wakeNext); the message goes to that wait only. A lost connection costs waiters
 * their wake messages until the client has subscribed again: they sleep meanwhile.
 */
class NodeSubscriber {
  private subscriber: Promise<Subscriber> | undefined;
  /** Resolves once the channel is subscribed: only then is a waiter listed with it. */
  private subscribed: Promise<boolean> | undefined;
  /** True once the subscription was confirmed (and until close). */
  confirmed = false;

  constructor(
    private readonly driver: RedisDriver,
    private readonly channel: string,
    private readonly deliver: (waitId: string) => void,
  ) {}

  /** True when the channel is subscribed now; starts subscribing otherwise. */
  ready(): Promise<boolean> {
    if (this.subscribed) return this.subscribed;
    const subscriber = this.driver.subscriber();
    this.subscriber = subscriber;
    const subscribed: Promise<boolean> = subscriber
      .then((connection) => connection.subscribe(this.channel, this.deliver))
      .then(
        () => this.subscribed === subscribed && (this.confirmed = true),
        () => {
          // Not subscribed (an ACL without channels, a node down): try again at the next contention.
          if (this.subscribed === subscribed) this.close();
          return false;
        },
      );
    this.subscribed = subscribed;
    return subscribed;
  }

  close(): void {
    void this.subscriber?.then(
      (connection) => connection.close(),
      () => undefined,
    );
    this.subscriber = undefined;
    this.subscribed = undefined;
    this.confirmed = false;
  }
}

/** What timers/promises' sleep rejects with, so an aborted wait looks the same either way. */
function abortError(signal: AbortSignal): Error {
  const error = new DOMException("The operation was aborted", "AbortError");
  Object.defineProperty(error, "cause", { value: signal.reason as unknown });
  return error;
}

/**
 * Whether waits listen on this node: single ioredis nodes only. Every driver has a subscriber, but
 * the handoff tests run on ioredis only (vitest.config.ts), so node-redis and cluster nodes keep
 * the sleeping retry until they cover those too.
 */
const wakesWaits = (node: RedlockNode): boolean => node.driver.kind === "ioredis";

/**
 * Handoff to the next in line. A contender that lost an acquire lists itself in the resource's
 * waiters set (waiters.ts) with this instance's wake channel on the first majority of nodes
 * (wakeNodes); the release picks the longest-waiting live contender on each of those nodes and
 * publishes its wait id there, so the lock passes in about one round trip, in arrival order, and
 * nobody else is woken. The woken wait retries once all but one of the wake nodes handed it the
 * resource. A lost message, a dead waiter or a node that cannot publish cost
 * at most the sleeping retry (`retryDelay ± retryJitter`) that every wait keeps as its fallback.
 * Cluster and node-redis clients just sleep.
 */
export class ReleaseWaiter {
  /** This instance's wake channel. */
  readonly channel = `${WAKE_CHANNEL_PREFIX}${randomBytes(8).toString("hex")}`;
  /** One per node whose waits listen (wakesWaits). */
  private readonly subscribers: Map<RedlockNode, NodeSubscriber>;
  /**
   * Wake messages a wait needs: all but one of the wake nodes (two of three for five nodes), so one
   * slow or paused wake node, or one the releaser saw down and the waiter did not, does not cost
   * the handoff. Not the first: the retry would run into keys not deleted yet. After the second,
   * the retry's SETs leave a hop after two releases ran; the others were sent with them and have
   * almost always landed (a retry that still meets a key fails, cleans up and waits again: safe).
   */
  private readonly needed: number;
  private readonly waits = new Map<string, Wake>();

  constructor(nodes: readonly RedlockNode[]) {
    const deliver = (waitId: string) => this.waits.get(waitId)?.();
    this.subscribers = new Map(
      nodes
        .filter(wakesWaits)
        .map((node) => [node, new NodeSubscriber(node.driver, this.channel, deliver)]),
    );
    this.needed = Math.max(1, quorumSize(nodes.length) - 1);
  }

  /** Whether the channel is subscribed on every one of `nodes` now (the wake nodes). */
  listensOn(nodes: Iterable<RedlockNode>): boolean {
    for (const node of nodes) if (!this.subscribers.get(node)?.confirmed) return false;
    return true;
  }

  /**
   * Whether waits can be woken from `nodes` (the wake nodes): true once the channel is subscribed
   * on every one of them, false when one cannot subscribe or has not within READY_TIMEOUT_MS (a
   * node down: the wait sleeps this once and asks again next time). Every wake node must be: a
   * release on one without the subscription publishes to nobody and drops the waiter as gone.
   * Starts subscribing on every node at the first call, so a node that becomes a wake node later
   * (another went down) is ready too. Until it resolves true a waiter is listed without the channel.
   */
  ready(nodes: Iterable<RedlockNode>): Promise<boolean> {
    for (const subscriber of this.subscribers.values()) void subscriber.ready();
    const wanted = [...nodes].map((node) => this.subscribers.get(node));
    if (wanted.some((subscriber) => subscriber === undefined)) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
      void Promise.all(wanted.map((subscriber) => subscriber!.ready())).then((subscribed) => {
        clearTimeout(timer);
        resolve(subscribed.every(Boolean));
      });
    });
  }

  /**
   * Resolves after `delayMs` (false), or as soon as all but one of the wake nodes handed the wait
   * `waitId` its resource (true: woken), or rejects when `signal` aborts.
   */
  wait(waitId: string, delayMs: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      let heard = 0;
      const finish = (woken: boolean, error?: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waits.delete(waitId);
        if (error === undefined) resolve(woken);
        else reject(error as Error);
      };
      const onAbort = () => finish(false, abortError(signal!));
      const timer = setTimeout(() => finish(false), delayMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waits.set(waitId, () => {
        heard += 1;
        if (heard === this.needed) finish(true);
      });
    });
  }

  /** Drops every subscriber connection (Redlock.quit). */
  close(): void {
    for (const subscriber of this.subscribers.values()) subscriber.close();
  }
}
