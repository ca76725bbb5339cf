import { randomBytes } from "node:crypto";
import { NodeHeartbeat } from "./heartbeat";
import { Holdings, type HoldingEvents, type PendingAcquire } from "./holdings";
import { noticeChannel, sessionKey } from "./keys";
import { NoticeChannel } from "./notices";
import type { RedlockNode } from "./node";
import { ownerLabels } from "./owner";
import { DEFAULT_HEARTBEAT_MS, heartbeatEncoder, sessionWindowMs } from "./protocol";
import type { Settings } from "./settings";

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
  /** Set by the first acquire: the session starts beside it (startBeside). */
  private scheduled = false;
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
    const heartbeatOf = heartbeatEncoder(owner?.json ?? "{}", this.startedAt, this.heartbeatMs);
    const key = sessionKey(this.id);
    const windowMs = sessionWindowMs(this.heartbeatMs);
    this.heartbeats = nodes.map((node) => new NodeHeartbeat(node, key, heartbeatOf, windowMs));
  }

  /**
   * Starts the session beside the instance's first acquire, never in front of it: its CLIENT ID,
   * heartbeat and subscriber connections would otherwise go out (or be built) before the acquire's
   * script on the same connections, and delay the acquire and the caller's next command (issue 40,
   * item 6). It starts once that acquire settled, a setImmediate later so that the caller's next
   * command goes out first; or as soon as the acquire waits to retry (waiting()): a revoke must reach
   * a waiting acquire. A no-op after the first call.
   */
  startBeside(acquiring: Promise<unknown>): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const start = () => void setImmediate(() => this.start());
    acquiring.then(start, start);
  }

  /** Starts the heartbeat and the notice channel; a no-op after, and once stopped. */
  private start(): void {
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

  /**
   * An acquire of the session waits to retry: a revoke of its resources cancels it, so the notice
   * channel must be open (the session starts now if the first acquire is this one).
   */
  waiting(resources: readonly string[]): PendingAcquire {
    this.start();
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
