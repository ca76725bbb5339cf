"use client";

import { formatClock, formatUptimeS } from "@/components/ui/format";
import { useServerNow } from "@/hooks/use-server-now";
import { lackingWords, type DownCauseKind, type NodeInfo } from "@/lib/api";
import styles from "./node-strip.module.css";

/** What to do about a node that does not answer, by why. */
const DOWN_FIX: Record<DownCauseKind, string> = {
  refused:
    "Start redis-server there again. Without AOF it comes back empty: keep it out of the quorum for your longest lock TTL first.",
  timeout:
    "Look for a paused (SIGSTOP, debugger, swapping) or overloaded process, or a network path that drops packets.",
  connect_timeout: "Check that the host is on and that no firewall drops the connection.",
  auth: "Fix the user or password of this node in REDLOCK_NODES, or its ACL.",
  dns: "Check the host name in REDLOCK_NODES and the console's DNS.",
  no_route: "Check the network path between the console and the node.",
  tls: "Check the node's certificate and the rediss:// settings.",
  connection_lost:
    "The console reconnects by itself; if it does not within seconds, check the process.",
  other: "Check the node's log.",
};

/** "4 min" since `sinceMs` on the server's clock, ticking every second. */
function Elapsed({ sinceMs }: { sinceMs: number }) {
  const nowMs = useServerNow(1_000);
  if (nowMs === null) return <>…</>;
  return <>{formatUptimeS(Math.max(0, (nowMs - sinceMs) / 1_000))}</>;
}

/** A down node: since when, the cause its connection met, and the fix beside it. */
export function NodeDownNotice({ node }: { node: NodeInfo }) {
  if (node.status !== "down" || !node.error) return null;
  const down = node.down;
  return (
    <div className={styles.problem} data-testid="node-down">
      <p className={styles.error}>
        {down ? (
          <>
            down since {formatClock(down.sinceMs)} (<Elapsed sinceMs={down.sinceMs} />
            ):{" "}
          </>
        ) : (
          "down: "
        )}
        {node.error}
      </p>
      <p className={styles.fix}>{DOWN_FIX[down?.cause ?? "other"]}</p>
    </div>
  );
}

/** A restart seen: when, whether it came back empty, which locks lack it now, and the fix. */
export function NodeRestartNotice({
  node,
  nodeCount,
  quorumSize,
}: {
  node: NodeInfo;
  nodeCount: number;
  quorumSize: number;
}) {
  const restart = node.restart;
  if (!restart) return null;
  const how =
    restart.emptyKeyspace === true
      ? " with an empty keyspace"
      : restart.emptyKeyspace === false
        ? " (it reloaded its AOF or RDB)"
        : "";
  return (
    <div className={styles.problem} data-testid="node-restart">
      <p className={styles.restart}>
        restarted at {formatClock(restart.atMs)}
        {how}: {lackingWords(restart.locksLacking, nodeCount, quorumSize)}.
      </p>
      {restart.lockCount > 0 && <p className={styles.fix}>{restart.fix}</p>}
    </div>
  );
}
