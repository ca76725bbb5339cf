import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Core } from "./core";
import { wakeNodes } from "./handoff";
import { waitersKey } from "./keys";
import type { RedlockNode } from "./node";
import type { OwnerLabels } from "./owner";
import { encodeWaiterMember } from "./protocol";
import type { Settings } from "./settings";
import { defineScript } from "./script";

type WaitersArgs =
  | readonly [action: "add", member: string, expiresAtMs: number, nowMs: number]
  | readonly [action: "remove", member: string];

/**
 * Adds (ARGV[1] "add") or removes ("remove") one waiter member (ARGV[2]) on every KEYS waiters set.
 * Adding scores it with its expiry ARGV[3] (epoch ms), drops members that expired before ARGV[4]
 * (now) and lengthens the set's TTL to the new member's expiry when it is shorter, so the set
 * outlives every listed wait and, once nobody adds to it, expires. Redis 7's PEXPIRE GT (then NX
 * for a new set, which has no TTL) does that in one command; an older server refuses the flag and
 * the TTL is set from the latest score instead (ZRANGE + PEXPIRE; untested: the tests run Redis 7).
 */
export const WAITERS = defineScript<WaitersArgs, number>(`
for i, key in ipairs(KEYS) do
  if ARGV[1] == "add" then
    redis.call("zremrangebyscore", key, "-inf", "(" .. ARGV[4])
    redis.call("zadd", key, ARGV[3], ARGV[2])
    local ttlMs = math.max(1, math.ceil(tonumber(ARGV[3]) - tonumber(ARGV[4])))
    local lengthened = redis.pcall("pexpire", key, ttlMs, "GT")
    if type(lengthened) == "table" then
      local latest = redis.call("zrange", key, -1, -1, "withscores")
      redis.call("pexpire", key, math.max(1, math.ceil(tonumber(latest[2]) - tonumber(ARGV[4]))))
    elseif lengthened == 0 then
      redis.call("pexpire", key, ttlMs, "NX")
    end
  else
    redis.call("zrem", key, ARGV[2])
  end
end
return #KEYS
`);

/**
 * WAITERS' removal for one resource, the common wait, sent as a plain ZREM: one command on the node
 * instead of a script call and its ZREM. The body says the same in Lua
 * (test/redlock/single-resource-scripts.test.ts compares them). No batch carries it or WAITERS:
 * every operation a batch script carries is defined anew in each of its calls, so each one carried
 * makes every batch dearer, and waiter commands are too few in a batch to repay that.
 */
export const WAITERS_REMOVE_ONE = defineScript<readonly [member: string], number>(
  `
redis.call("zrem", KEYS[1], ARGV[1])
return 1
`,
  { name: "zrem", argsOf: ([key], [member]) => [key!, member], replyOf: () => 1 },
);

/** Longest a registration lasts before the waiter renews it (retryCount -1 waits without end). */
const REGISTRATION_SPAN_MS = 30_000;

/**
 * The pauses after a woken attempt failed, before the sleeping retry resumes. A wake comes once
 * all but one wake node released; the release's deletes on the other nodes were sent at the same
 * time, but on a loaded machine a server may serve the woken retry's SET (another connection)
 * before that delete: the retry meets the old value and fails, and no wake is left to send. It is
 * the old holder's release still landing, so the wait tries again within milliseconds, then a
 * little later (2.6 s in all), rather than after its retryDelay (9,975 ms seen on CI). Four at most
 * per wake, each within the retry it cut short: none counts against retryCount (core.ts,
 * withRetries), and none is later than the retry itself would have been.
 */
const SETTLE_DELAYS_MS = [20, 100, 500, 2_000] as const;

/**
 * One acquire call's entry in `redlock:waiters:<resource>` on the nodes that wake waits (handoff.ts,
 * wakeNodes: the first majority that can take commands), for others to see who
 * waits. Registered after the first failed attempt only (an uncontended acquire writes nothing),
 * renewed while the wait goes on, removed when the call ends however it ends. Commands go on each
 * node's connection in order, so a removal always follows its registration; none is awaited: a
 * lost one expires with the retry window, which bounds the score and the key's TTL.
 */
export class WaiterEntry {
  /** Random id of this wait: what a release publishes to hand it the resource (handoff.ts). */
  readonly id = randomBytes(8).toString("hex");
  private member: string;
  private readonly labels: string;
  private readonly sinceMs: number;
  /** The instance's wake channel once subscribed; until then the member carries none. */
  private wakeChannel: string | undefined;
  private subscribing = false;
  private left = false;
  private readonly keys: string[];
  private readonly retryMs: number;
  private registeredUntil = 0;
  private readonly registeredOn = new Set<RedlockNode>();
  private failedAttempts = 0;
  /** The last pause ended before the retry was due (woken, or settling): the next attempt is free. */
  private pausedEarly = false;
  /**
   * Set while the wait settles after a wake: the index into SETTLE_DELAYS_MS of the next pause,
   * used only if the attempt the wake started fails.
   */
  private settleStep: number | undefined;
  /** Epoch ms of the first failed attempt: when the wait, as others see it, began. */
  private firstFailedMs: number | undefined;

  constructor(
    private readonly core: Core,
    resources: readonly string[],
    ttlMs: number,
    private readonly settings: Settings,
    owner: OwnerLabels | undefined,
    /** Epoch ms when the acquire call started: the wait began then. */
    sinceMs: number,
    /** The waiters sets it joins: each resource's, or a semaphore's one queue. */
    keys: string[] = resources.map(waitersKey),
  ) {
    this.labels = owner?.json ?? "{}";
    this.sinceMs = sinceMs;
    this.member = this.memberText();
    this.keys = keys;
    // Longest one retry can take: the wait, the attempt, and the clean-up of a failed attempt.
    this.retryMs =
      settings.retryDelay +
      settings.retryJitter +
      Math.min(settings.nodeTimeout, ttlMs) +
      settings.nodeTimeout;
  }

  /** This wait's member as it stands (the format is the wire protocol's: protocol.ts). */
  private memberText(): string {
    return encodeWaiterMember({
      id: this.id,
      labelsJson: this.labels,
      sinceMs: this.sinceMs,
      firstFailedAtMs: this.firstFailedMs,
      sessionId: this.core.session?.id,
      wakeChannel: this.wakeChannel,
    });
  }

  /**
   * Until the next attempt: woken by a release that hands this wait the resource (handoff), or
   * after `delayMs` (the sleeping retry, also the fallback when a wake message is lost). True when
   * cut short (woken, or a settling pause shorter than `delayMs`).
   */
  async pause(delayMs: number, signal?: AbortSignal): Promise<boolean> {
    const handoff = this.core.releaseWaiter;
    if (!handoff || !this.settings.wakeOnRelease) {
      await sleep(delayMs, undefined, { signal });
      return false;
    }
    if (this.wakeChannel === undefined && !this.subscribing) {
      // Never waits for the subscriptions (a node may be down): listed with the channel once they are.
      this.subscribing = true;
      void handoff.ready(wakeNodes(this.core.nodes).waking).then((ready) => {
        this.subscribing = false;
        if (ready && !this.left) this.listWithChannel(handoff.channel);
      });
    }
    const step = this.settleStep;
    const pauseMs = step === undefined ? delayMs : Math.min(delayMs, SETTLE_DELAYS_MS[step]!);
    const woken = await handoff.wait(this.id, pauseMs, signal);
    this.pausedEarly = woken || pauseMs < delayMs;
    // Reached only when the attempt before this pause failed: after a wake, settle.
    this.settleStep = woken
      ? 0
      : step === undefined || step + 1 === SETTLE_DELAYS_MS.length
        ? undefined
        : step + 1;
    return this.pausedEarly;
  }

  /** Lists the wait again with its wake channel: the release now finds it (same id, new member). */
  private listWithChannel(channel: string): void {
    this.wakeChannel = channel;
    const previous = this.member;
    this.member = this.memberText();
    const nowMs = Date.now();
    for (const node of this.registeredOn) {
      this.send(node, ["remove", previous]);
      this.send(node, ["add", this.member, this.registeredUntil, nowMs]);
    }
  }

  /** After each failed attempt: registers (or renews) while retries remain. */
  attemptFailed(): void {
    // An attempt within a retry a wake cut short spends no retry (withRetries): nor here.
    if (!this.pausedEarly) this.failedAttempts += 1;
    this.pausedEarly = false;
    const { retryCount } = this.settings;
    const retriesLeft = retryCount === -1 ? Infinity : retryCount - this.failedAttempts + 1;
    if (retriesLeft <= 0) return;
    const nowMs = Date.now();
    if (this.firstFailedMs === undefined) {
      // Not registered anywhere yet: the member can still change without a removal.
      this.firstFailedMs = nowMs;
      this.member = this.memberText();
    }
    const wakeOn = wakeNodes(this.core.nodes).waking;
    // Renew only when the entry could lapse before the next failed attempt comes round; until
    // then, list it only on a node that has become one of the wake nodes since (another went down
    // or came back), so releases that wake from there find it again.
    if (this.registeredUntil - nowMs > 2 * this.retryMs) {
      for (const node of wakeOn)
        if (!this.registeredOn.has(node) && !node.unavailableReason()) this.add(node, nowMs);
      return;
    }
    const spanMs = Math.min(
      retriesLeft * this.retryMs,
      Math.max(REGISTRATION_SPAN_MS, 4 * this.retryMs),
    );
    this.registeredUntil = nowMs + spanMs;
    const handoff = this.core.releaseWaiter;
    if (
      this.registeredOn.size === 0 &&
      this.wakeChannel === undefined &&
      handoff?.listensOn(wakeOn) &&
      this.settings.wakeOnRelease
    ) {
      // This instance already listens: listed with its channel from the start.
      this.wakeChannel = handoff.channel;
      this.member = this.memberText();
    }
    // A node with overdue commands gets no new ones (its queue stays bounded).
    for (const node of wakeOn) if (!node.unavailableReason()) this.add(node, nowMs);
  }

  private add(node: RedlockNode, nowMs: number): void {
    this.registeredOn.add(node);
    this.send(node, ["add", this.member, this.registeredUntil, nowMs]);
  }

  /** When the acquire call ends (acquired, gave up, aborted): removes the entry where it was sent. */
  leave(): void {
    this.left = true;
    for (const node of this.registeredOn) this.send(node, ["remove", this.member]);
    this.registeredOn.clear();
  }

  private send(node: RedlockNode, args: WaitersArgs): void {
    const sent =
      args[0] === "remove" && this.keys.length === 1
        ? node.evaluate(WAITERS_REMOVE_ONE, this.keys, [args[1]])
        : node.evaluate(WAITERS, this.keys, args);
    sent.catch(() => undefined);
  }
}
