import { randomBytes } from "node:crypto";
import { NodeHeartbeat } from "./heartbeat";
import { Holdings, type HoldingEvents, type PendingAcquire } from "./holdings";
import { noticeChannel, sessionKey } from "./keys";
import { NoticeChannel } from "./notices";
import type { RedlockNode } from "./node";
import { ownerLabels } from "./owner";
import { DEFAULT_HEARTBEAT_MS, type Settings } from "./settings";

/** A heartbeat older than this is late: three periods missed (docs/holder-sessions.md). */
export const lateAfterMs = (heartbeatMs: number): number => 3 * heartbeatMs;

/**
 * The session key's TTL, 60 periods (60 s at the default heartbeat): how long a session stays
 * readable after its last heartbeat, so that the console can still tell a long-paused holder from
 * one that never existed. Also why the console lets a node prove "gone" only once it has been up
 * longer than this: any session key written before a restart has expired by then.
 */
export const sessionWindowMs = (heartbeatMs: number): number => 60 * heartbeatMs;

/** What `redlock.session` shows of the instance's session. */
export interface SessionInfo {
  /** 16 random bytes as 32 lowercase hex chars, in every lock value and waiter entry. */
  readonly id: string;
  /** The owner labels (host, pid, the `owner` setting's), written with every heartbeat. */
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * A Redlock instance's holder session (docs/holder-sessions.md): its id travels in every lock value
 * and waiter entry; from the first acquire a heartbeat per node every `heartbeatMs` (a timer that
 * keeps no process alive) says the process is alive, and a notice channel per node lets the console
 * tell it at once that a lock was force-released or is asked back. Nothing of it runs on the
 * acquire or release path but in-memory bookkeeping (Holdings). Stopped by `quit()`, and once every
 * node's client has been closed for good.
 */
export class HolderSession implements SessionInfo {
  readonly id = randomBytes(16).toString("hex");
  readonly labels: Readonly<Record<string, string>>;
  readonly heartbeatMs: number;
  readonly holdings: Holdings;
  readonly notices: NoticeChannel;
  private readonly startedAt = Date.now();
  private readonly heartbeats: NodeHeartbeat[];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly nodes: readonly RedlockNode[],
    settings: Settings,
    emit: <E extends keyof HoldingEvents>(event: E, payload: HoldingEvents[E]) => void,
  ) {
    const owner = ownerLabels(settings);
    this.labels = owner?.labels ?? {};
    this.heartbeatMs =
      (settings.session !== false && settings.session.heartbeatMs) || DEFAULT_HEARTBEAT_MS;
    this.holdings = new Holdings(emit);
    this.notices = new NoticeChannel(
      nodes,
      noticeChannel(this.id),
      this.holdings,
      settings.nodeTimeout,
    );
    // Built by hand around the labels JSON, as lock values are (value.ts): one string per connection id.
    const prefix = `{"v":1,"labels":${owner?.json ?? "{}"},"startedAt":${this.startedAt},"heartbeatMs":${this.heartbeatMs},"clientId":`;
    const key = sessionKey(this.id);
    const windowMs = sessionWindowMs(this.heartbeatMs);
    this.heartbeats = nodes.map(
      (node) => new NodeHeartbeat(node, key, (clientId) => `${prefix}${clientId}}`, windowMs),
    );
  }

  /** Starts the heartbeat and the notice channel (the first acquire); a no-op after. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.tick(), this.heartbeatMs).unref();
    for (const heartbeat of this.heartbeats) heartbeat.start();
    this.notices.subscribe();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const heartbeat of this.heartbeats) heartbeat.stop();
    this.notices.close();
  }

  /** An acquire of the session waits to retry: a revoke of its resources cancels it. */
  waiting(resources: readonly string[]): PendingAcquire {
    return this.holdings.waiting(resources);
  }

  private tick(): void {
    const ended = this.nodes.map((node) => node.driver.status === "end");
    if (ended.every(Boolean)) return this.stop();
    ended.forEach((isEnded, index) => isEnded && this.notices.closeNode(index));
    this.holdings.sweep(Date.now());
    this.notices.subscribe();
    for (const heartbeat of this.heartbeats) heartbeat.beat();
  }
}
