import "server-only";
/**
 * Logged-out sessions, kept on the Redis nodes (like the audit trail) so that a logout holds after
 * a console restart and on every replica. A revocation is a key `redlock:console:revoked:<hash of
 * the session nonce>` written to every reachable node, expiring with the session itself.
 *
 * Read rule: a session is revoked if ANY node that answers has its key. Revocations only ever
 * take access away, so believing a single node is safe (the worst case is a logout seen early),
 * while a majority rule would let a logged-out cookie back in whenever the nodes that stored the
 * revocation are a minority of those answering. If no node answers, the session is treated as
 * revoked (fail closed): the console can do nothing useful without nodes anyway.
 * Limit: a revocation is lost if every node that stored it loses it (restarted without
 * persistence, or FLUSHALL) before the session expires.
 */
import { createHash } from "node:crypto";
import { RESERVED_PREFIX } from "@/lib/api";
import { withDeadline, type ConsoleNode } from "../node-registry";

export const REVOCATION_PREFIX = `${RESERVED_PREFIX}console:revoked:`;

export interface Revocations {
  /** Stores the revocation on every reachable node; resolves with the ids of nodes that took it. */
  revoke(nonce: string, expiresAt: number): Promise<string[]>;
  isRevoked(nonce: string): Promise<boolean>;
}

const keyOf = (nonce: string) =>
  `${REVOCATION_PREFIX}${createHash("sha256").update(nonce).digest("base64url")}`;

export function createRevocations(
  nodes: readonly ConsoleNode[],
  deadlineMs: number,
  isHung: (node: ConsoleNode) => boolean,
): Revocations {
  // This replica's own logouts: answered without a round trip, and kept if the nodes lose theirs.
  const local = new Map<string, number>();
  const knownLocally = (nonce: string) => {
    const now = Date.now();
    for (const [known, until] of local) if (until <= now) local.delete(known);
    return local.has(nonce);
  };
  return {
    async revoke(nonce, expiresAt) {
      local.set(nonce, expiresAt);
      const ttlMs = Math.max(1, expiresAt - Date.now());
      const stored = await Promise.all(
        nodes.map((node) =>
          isHung(node)
            ? false
            : withDeadline(node.client.set(keyOf(nonce), "1", "PX", ttlMs), deadlineMs).then(
                () => true,
                () => false,
              ),
        ),
      );
      return nodes.filter((_, index) => stored[index]).map((node) => node.id);
    },
    async isRevoked(nonce) {
      if (knownLocally(nonce)) return true;
      const replies = await Promise.all(
        nodes.map((node) =>
          isHung(node)
            ? undefined
            : withDeadline(node.client.exists(keyOf(nonce)), deadlineMs).catch(() => undefined),
        ),
      );
      const answered = replies.filter((reply) => reply !== undefined);
      return answered.length === 0 || answered.some((count) => count > 0);
    },
  };
}
