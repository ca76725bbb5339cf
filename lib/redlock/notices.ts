import type { LockForceReleasedError } from "./errors";
import type { Holding, Holdings } from "./holdings";
import type { Lock } from "./lock";
import { readForceRelease, readLoss, readRevoke } from "./marks";
import type { RedlockNode } from "./node";
import { subscribeShared } from "./shared-subscriber";
// The notice's format is the wire protocol's (protocol.ts).
import { decodeNotice as parseNotice, type Notice } from "./protocol";

export type { Notice };

/**
 * Notices remembered as handled, by (kind, audit id, resource): the copies published on the other
 * nodes are not read again, and each lock of a session release (one audit id, one notice per
 * lock) is read on its own.
 */
const HANDLED_KEPT = 1_024;
/** After a node refused the subscription (an ACL without channels, a node down), try again after this. */
const SUBSCRIBE_RETRY_MS = 10_000;

/**
 * A session's notice channel: subscribed on each node (on a cluster any node hears a PUBLISH made
 * on any other) over the client's pub/sub connection, shared with the other sessions on the same
 * client (shared-subscriber.ts), from the first acquire until the session stops. A notice is only a hint: it makes the library read the nodes, and a lock of
 * this session is acted on only when a majority shows it lost or revoked (marks.ts).
 */
export class NoticeChannel {
  /** Per node, what leaves the channel once subscribed (shared-subscriber.ts). */
  private readonly subscribers: Array<Promise<() => void> | undefined>;
  /** Per node, when a failed subscription may be tried again (epoch ms). */
  private readonly retryAt: number[];
  /** Notices being checked or confirmed (insertion order: the oldest are forgotten first). */
  private readonly seen = new Set<string>();

  constructor(
    private readonly nodes: readonly RedlockNode[],
    readonly channel: string,
    private readonly holdings: Holdings,
    /** Bounds each read of the nodes, ms (nodeTimeout). */
    private readonly timeoutMs: number,
  ) {
    this.subscribers = nodes.map(() => undefined);
    this.retryAt = nodes.map(() => 0);
  }

  /**
   * Subscribes on each node that is not subscribed or trying to (the first acquire, then every
   * heartbeat); one that failed is tried again SUBSCRIBE_RETRY_MS later.
   */
  subscribe(): void {
    this.nodes.forEach((node, index) => {
      if (this.subscribers[index] || node.driver.status === "end") return;
      if (Date.now() < this.retryAt[index]!) return;
      const subscribed = subscribeShared(node.driver, this.channel, this.onMessage);
      this.subscribers[index] = subscribed;
      subscribed.catch(() => {
        if (this.subscribers[index] !== subscribed) return;
        this.subscribers[index] = undefined;
        this.retryAt[index] = Date.now() + SUBSCRIBE_RETRY_MS;
      });
    });
  }

  /** Leaves the channel on one node (its client was closed for good). */
  closeNode(index: number): void {
    void this.subscribers[index]?.then(
      (leave) => leave(),
      () => undefined,
    );
    this.subscribers[index] = undefined;
  }

  close(): void {
    this.nodes.forEach((_node, index) => this.closeNode(index));
  }

  private readonly onMessage = (message: string): void => {
    const notice = parseNotice(message);
    if (!notice) return;
    const key = JSON.stringify([notice.kind, notice.auditId, notice.resource]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.seen.size > HANDLED_KEPT) this.seen.delete(this.seen.values().next().value!);
    void this.check(notice.kind, notice.resource, notice.auditId).then(
      // Nothing confirmed (yet): a copy of the notice from another node may look again.
      (confirmed) => confirmed || this.seen.delete(key),
      () => this.seen.delete(key),
    );
  };

  /**
   * Reads the nodes for what the console did to this session's locks on `resource`: a revoke when
   * a majority carries its marker; a force-release (notice `auditId`) when a majority answers with
   * anything but the lock's value (marks.ts readLoss).
   */
  async check(kind: Notice["kind"], resource: string, auditId = ""): Promise<boolean> {
    const confirmed = await Promise.all(
      this.holdings
        .on(resource)
        .map((holding) =>
          kind === "force-release"
            ? this.confirmLoss(holding, resource, auditId)
            : this.confirmRevoke(holding, resource),
        ),
    );
    return confirmed.includes(true);
  }

  /**
   * Why an extension of `lock` failed, when the console did it: a majority of its tombstones (the
   * error to throw: for a lock of this session and for one handed over from another process, built
   * from its value), or of revoke markers carrying its value (a revoke forced after its deadline,
   * its notice lost: the holder hears it, the extension's own error stands).
   */
  async explainLoss(lock: Lock): Promise<LockForceReleasedError | undefined> {
    const holding = this.holdings.get(lock.value);
    for (const resource of lock.resources) {
      const forced = await readForceRelease(this.nodes, resource, lock.value, this.timeoutMs);
      if (forced) return holding ? this.holdings.forceReleased(holding, forced) : forced;
      if (holding && (await this.confirmRevoke(holding, resource))) return undefined;
    }
    return undefined;
  }

  private async confirmLoss(holding: Holding, resource: string, auditId: string): Promise<boolean> {
    const { value } = holding.lock;
    const error = await readLoss(this.nodes, resource, value, this.timeoutMs, auditId);
    if (error) this.holdings.forceReleased(holding, error);
    return error !== undefined;
  }

  private async confirmRevoke(holding: Holding, resource: string): Promise<boolean> {
    const revoke = await readRevoke(this.nodes, resource, holding.lock.value, this.timeoutMs);
    if (revoke) this.holdings.revoked(holding, revoke);
    return revoke !== undefined;
  }
}
