import type { Subscriber } from "./driver";
import type { RedlockError } from "./errors";
import type { Holding, Holdings } from "./holdings";
import type { Lock } from "./lock";
import { readForceRelease, readRevoke } from "./marks";
import type { RedlockNode } from "./node";

/** What the console publishes on a session's notice channel (docs/holder-sessions.md). */
export interface Notice {
  readonly kind: "force-release" | "revoke";
  readonly resource: string;
  readonly auditId: string;
}

/** A notice's fields, or undefined for a message that is not one. */
export function parseNotice(message: string): Notice | undefined {
  try {
    const parsed = JSON.parse(message) as Record<string, unknown>;
    const { kind, resource, resourceBase64, auditId } = parsed;
    if ((kind !== "force-release" && kind !== "revoke") || typeof auditId !== "string")
      return undefined;
    if (typeof resource === "string") return { kind, resource, auditId };
    if (typeof resourceBase64 === "string")
      return { kind, resource: Buffer.from(resourceBase64, "base64").toString(), auditId };
    return undefined;
  } catch {
    return undefined;
  }
}

/** Audit ids remembered as handled, so the copies published on the other nodes are not read again. */
const HANDLED_KEPT = 1_024;
/** After a node refused the subscription (an ACL without channels, a node down), try again after this. */
const SUBSCRIBE_RETRY_MS = 10_000;

/**
 * A session's notice channel: one subscriber connection per node (RedisDriver.subscriber; on a
 * cluster any node hears a PUBLISH made on any other), opened at the first acquire and kept until
 * the session stops. A notice is only a hint: it makes the library read the nodes, and a lock of
 * this session is acted on only when a majority shows the console's mark for it (marks.ts).
 */
export class NoticeChannel {
  private readonly subscribers: Array<Promise<Subscriber> | undefined>;
  /** Per node, when a failed subscription may be tried again (epoch ms). */
  private readonly retryAt: number[];
  /** Audit ids being checked or confirmed (insertion order: the oldest are forgotten first). */
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
      const subscribed = node.driver.subscriber().then(async (subscriber) => {
        try {
          await subscriber.subscribe(this.channel, this.onMessage);
          return subscriber;
        } catch (error) {
          subscriber.close();
          throw error;
        }
      });
      this.subscribers[index] = subscribed;
      subscribed.catch(() => {
        if (this.subscribers[index] !== subscribed) return;
        this.subscribers[index] = undefined;
        this.retryAt[index] = Date.now() + SUBSCRIBE_RETRY_MS;
      });
    });
  }

  /** Closes one node's subscriber (its client was closed for good). */
  closeNode(index: number): void {
    void this.subscribers[index]?.then(
      (subscriber) => subscriber.close(),
      () => undefined,
    );
    this.subscribers[index] = undefined;
  }

  close(): void {
    this.nodes.forEach((_node, index) => this.closeNode(index));
  }

  private readonly onMessage = (message: string): void => {
    const notice = parseNotice(message);
    if (!notice || this.seen.has(notice.auditId)) return;
    this.seen.add(notice.auditId);
    if (this.seen.size > HANDLED_KEPT) this.seen.delete(this.seen.values().next().value!);
    void this.check(notice.kind, notice.resource).then(
      // Nothing confirmed (yet): a copy of the notice from another node may look again.
      (confirmed) => confirmed || this.seen.delete(notice.auditId),
      () => this.seen.delete(notice.auditId),
    );
  };

  /** Reads the nodes for the console's `kind` of mark on this session's locks on `resource`. */
  async check(kind: Notice["kind"], resource: string): Promise<boolean> {
    const confirmed = await Promise.all(
      this.holdings
        .on(resource)
        .map((holding) =>
          kind === "force-release"
            ? this.confirmForceRelease(holding, resource)
            : this.confirmRevoke(holding, resource),
        ),
    );
    return confirmed.includes(true);
  }

  /**
   * Why an extension of `lock` failed, when the console did it: a majority of its tombstones, or
   * of revoke markers carrying its value (a revoke forced after its deadline, its notice lost).
   */
  async explainLoss(lock: Lock): Promise<RedlockError | undefined> {
    const holding = this.holdings.get(lock.value);
    if (!holding) return undefined;
    for (const resource of lock.resources) {
      if (await this.confirmForceRelease(holding, resource)) return holding.forced;
      if (await this.confirmRevoke(holding, resource)) return holding.revokes?.get(resource)?.error;
    }
    return undefined;
  }

  private async confirmForceRelease(holding: Holding, resource: string): Promise<boolean> {
    const { value } = holding.lock;
    const error = await readForceRelease(this.nodes, resource, value, this.timeoutMs);
    if (error) this.holdings.forceReleased(holding, error);
    return error !== undefined;
  }

  private async confirmRevoke(holding: Holding, resource: string): Promise<boolean> {
    const revoke = await readRevoke(this.nodes, resource, holding.lock.value, this.timeoutMs);
    if (revoke) this.holdings.revoked(holding, revoke);
    return revoke !== undefined;
  }
}
