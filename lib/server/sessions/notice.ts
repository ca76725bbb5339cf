import "server-only";
/**
 * The console's notice to a holder session (docs/holder-sessions.md): one PUBLISH on every lock node
 * to `redlock:notice:{<sessionId>}`, in the library's format (encodeNotice). Only a hint: the
 * holder's library acts only once it finds the console's mark (the tombstone, or the revoke marker)
 * on a majority of the nodes.
 */
import { encodeNotice, noticeChannel } from "@redlock-console/redlock";
import type { ConsoleNode } from "../node-registry";
import { withDeadline } from "../node-registry";

export interface Notice {
  readonly kind: "force-release" | "revoke";
  readonly key: Buffer;
  readonly auditId: string;
}

/**
 * Publishes `notice` to `sessionId` on every node but the `skip`ped ones (known silent); resolves
 * with how many nodes took it (on a cluster node PUBLISH reaches every shard's subscribers).
 */
export async function publishNotice(
  nodes: readonly ConsoleNode[],
  sessionId: string,
  notice: Notice,
  deadlineMs: number,
  skip: ReadonlySet<string> = new Set(),
): Promise<number> {
  const message = encodeNotice({
    kind: notice.kind,
    resource: notice.key,
    auditId: notice.auditId,
  });
  const sent = await Promise.all(
    nodes.map((node) =>
      skip.has(node.id)
        ? false
        : withDeadline(node.client.publish(noticeChannel(sessionId), message), deadlineMs).then(
            () => true,
            () => false,
          ),
    ),
  );
  return sent.filter(Boolean).length;
}
