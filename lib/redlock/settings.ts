import { DEFAULT_HEARTBEAT_MS, driftMs } from "./protocol";
import { mergeOwner, ownerLabels, type OwnerSetting } from "./owner";

export interface Settings {
  /**
   * Expected clock drift between nodes, as a fraction of the TTL; subtracted from validity.
   * @default 0.01
   */
  readonly driftFactor: number;
  /**
   * Attempts after the first before `acquire`/`extend` give up. -1 retries until aborted.
   * @default 10
   */
  readonly retryCount: number;
  /** Base wait between attempts, in ms. @default 200 */
  readonly retryDelay: number;
  /** Random ± spread added to each wait, in ms, so contenders desynchronise. @default 100 */
  readonly retryJitter: number;
  /** `using` extends the lock when its remaining validity drops below this, in ms. @default 500 */
  readonly automaticExtensionThreshold: number;
  /**
   * How long one node may take to answer one command, in ms; a slower node is a vote against.
   * Capped per operation by the TTL, since a later answer cannot yield a lock anyway.
   * @default 500
   */
  readonly nodeTimeout: number;
  /** Hand out a fencing token with each lock (`lock.fencingToken`). @default false */
  readonly fencing: boolean;
  /**
   * A node whose Redis process started less than this many ms ago gets no vote: it may have lost
   * keys in a crash and could grant a lock that is still held. Set it at least to your longest TTL
   * when masters run without fsync-always persistence. `false` turns the check off.
   * @default false
   */
  readonly restartQuarantine: number | false;
  /**
   * Labels (string to string) naming who holds a lock, e.g. `{ service: "billing" }`. They travel in
   * the lock's value (`rl1:<token>:{json}`, value.ts) together with `host` and `pid` (filled by the
   * library, overridable), the acquire time and the TTL, so `GET <resource>` says who holds it; read
   * back by `redlock.inspect()`. Per-call labels are merged over the instance's. The labels' JSON is
   * capped at 1,024 bytes (a TypeError past it). `false` makes the value the bare 40-hex token.
   * @default {} (on, with host and pid only)
   */
  readonly owner: OwnerSetting;
  /**
   * A contender that retries lists itself (its owner labels, since when) at `redlock:waiters:<resource>`
   * on each node, until it acquires, gives up or is aborted; the entry expires with its retry window.
   * Nothing is written by an acquire that succeeds at its first attempt. `false` opts out.
   * @default true
   */
  readonly waiters: boolean;
  /**
   * Handoff to the next in line: a contender waiting to retry lists its instance's wake channel with
   * its waiters entry, and a release hands the resource to the longest-waiting live contender only
   * (PUBLISH of its wait id on that channel; one subscriber connection per node per instance, opened
   * at its first contended acquire), which retries at once: the lock passes in about one round trip,
   * in arrival order. `retryDelay ± retryJitter` stays every wait's bound and the fallback for a lost
   * message. Needs `waiters`; Cluster clients and clients without `duplicate()` just sleep.
   * @default true
   */
  readonly wakeOnRelease: boolean;
  /**
   * This instance's holder session (session.ts, docs/holder-sessions.md): a random id carried in
   * every lock value and waiter entry, and a heartbeat on every node, one `SET
   * redlock:session:{<id>} … PX` per node every `heartbeatMs` ms, from the first acquire until
   * `quit()`, off the acquire/release path. With it the console tells a crashed holder from a
   * paused one, and tells a holder at once (a notice on `redlock:notice:{<id>}`) that its lock was
   * force-released or that it is asked to let go. Per instance: a call cannot change it. The id
   * travels in the value: an instance with `owner: false` has no session, and a call with
   * `owner: false` writes a value without it. `false` turns it off.
   * @default { heartbeatMs: 1000 }
   */
  readonly session: SessionSetting;
}

/** The `session` setting: the heartbeat's period, or false for no session. */
export type SessionSetting =
  | {
      /**
       * How often the heartbeat goes out to each node, in ms; the console counts a heartbeat
       * older than 3 periods as late, and the session key lives 60 periods.
       * @default 1000
       */
      readonly heartbeatMs?: number;
    }
  | false;

export { DEFAULT_HEARTBEAT_MS };

/** Per-call settings; `signal` cancels a pending acquire or extend (ours). */
export interface CallSettings extends Partial<Omit<Settings, "session">> {
  readonly signal?: AbortSignal;
}

/** node-redlock's defaults and ours; frozen, since every instance without overrides shares it. */
export const defaultSettings: Settings = Object.freeze({
  driftFactor: 0.01,
  retryCount: 10,
  retryDelay: 200,
  retryJitter: 100,
  automaticExtensionThreshold: 500,
  nodeTimeout: 500,
  fencing: false,
  restartQuarantine: false,
  owner: Object.freeze({}),
  waiters: true,
  wakeOnRelease: true,
  session: Object.freeze({ heartbeatMs: DEFAULT_HEARTBEAT_MS }),
});

const nonNegative = (name: keyof Settings, value: number) => {
  if (!Number.isFinite(value) || value < 0)
    throw new TypeError(`Setting "${name}" must be a non-negative number, got ${value}.`);
};

const hasOverride = (overrides: Partial<Settings> & { signal?: unknown }) =>
  Object.keys(overrides).some(
    (key) => key !== "signal" && overrides[key as keyof Settings] !== undefined,
  );

export function resolveSettings(base: Settings, overrides: Partial<Settings> = {}): Settings {
  // Most calls pass no overrides: reuse the base, validated when it was resolved itself.
  if (!hasOverride(overrides)) return base;
  const defined = Object.fromEntries(
    Object.entries(overrides).filter(([, value]) => value !== undefined),
  );
  const settings = {
    ...base,
    ...defined,
    owner: mergeOwner(base.owner, overrides.owner),
  } as Settings;
  nonNegative("driftFactor", settings.driftFactor);
  nonNegative("retryDelay", settings.retryDelay);
  nonNegative("retryJitter", settings.retryJitter);
  nonNegative("automaticExtensionThreshold", settings.automaticExtensionThreshold);
  if (!(settings.nodeTimeout > 0))
    throw new TypeError(
      `Setting "nodeTimeout" must be a positive number of ms, got ${settings.nodeTimeout}.`,
    );
  if (!Number.isInteger(settings.retryCount) || settings.retryCount < -1) {
    throw new TypeError(
      `Setting "retryCount" must be an integer >= -1, got ${settings.retryCount}.`,
    );
  }
  if (settings.restartQuarantine !== false)
    nonNegative("restartQuarantine", settings.restartQuarantine);
  assertSession(settings.session);
  ownerLabels(settings); // validates the labels and computes their JSON once for these settings
  return settings;
}

function assertSession(session: unknown): asserts session is SessionSetting {
  if (session === false) return;
  if (typeof session !== "object" || session === null)
    throw new TypeError(`Setting "session" must be { heartbeatMs?: number } or false.`);
  const { heartbeatMs } = session as { heartbeatMs?: unknown };
  if (heartbeatMs !== undefined && !(Number.isInteger(heartbeatMs) && (heartbeatMs as number) > 0))
    throw new TypeError(
      `Setting "session.heartbeatMs" must be a positive integer number of ms, got ${String(heartbeatMs)}.`,
    );
}

/**
 * How long a lock stays safely ours after an operation that took `elapsedMs`.
 * Every node's key expires `ttlMs` after that node set it, which is no earlier than our start, so
 * the lock lasts at least `ttlMs - elapsedMs` from now on our clock. Clocks run at slightly
 * different rates, so we also subtract their drift (protocol.ts's driftMs: `driftFactor · ttlMs`
 * plus 2 ms, the formula of the Redis distlock page and node-redlock).
 */
export function validityMs(ttlMs: number, elapsedMs: number, driftFactor: number): number {
  return Math.floor(ttlMs - elapsedMs - driftMs(ttlMs, driftFactor));
}

export function assertTtl(ttlMs: number): void {
  if (typeof ttlMs !== "number" || Math.floor(ttlMs) !== ttlMs) {
    // node-redlock's class and message, so code that matches on them keeps working.
    throw new Error("Duration must be an integer value in milliseconds.");
  }
  if (ttlMs <= 0)
    throw new RangeError(`Duration must be a positive number of milliseconds, got ${ttlMs}.`);
}

export function assertResources(resources: unknown): asserts resources is string[] {
  if (!Array.isArray(resources) || resources.length === 0) {
    throw new TypeError(
      "At least one resource is required: pass a non-empty array of resource names.",
    );
  }
  if (resources.some((resource) => typeof resource !== "string" || resource.length === 0)) {
    throw new TypeError("Every resource must be a non-empty string.");
  }
  if (resources.length > 1 && new Set(resources).size !== resources.length)
    throw new TypeError("Resources must not repeat.");
}

/** Waits `retryDelay ± retryJitter` (uniform), so contenders that collided spread out. */
export function retryWaitMs(settings: Settings): number {
  return Math.max(
    0,
    settings.retryDelay + Math.floor((Math.random() * 2 - 1) * settings.retryJitter),
  );
}
