import { NodeIndexStatus } from "@/components/locks/index-status";
import { ValidityCountdown } from "@/components/locks/validity-countdown";
import { formatLatencyMs, formatUptimeS } from "@/components/ui/format";
import type { ClusterInfo, NodeInfo, NodeStatus } from "@/lib/api";
import { KeyspaceEventsAction } from "./keyspace-events-action";
import { NodeDetails } from "./node-details";
import { NodeDownNotice, NodeRestartNotice } from "./node-state";
import { NodeWarningChips, NodeWarningsDetails } from "./node-warnings";
import styles from "./node-strip.module.css";

function NodeStatusBadge({ status }: { status: NodeStatus }) {
  return <span className={`badge badge-node-${status}`}>{status}</span>;
}

const slotText = (ranges: ReadonlyArray<readonly [number, number]>) =>
  ranges.map(([start, end]) => (start === end ? `${start}` : `${start}–${end}`)).join(", ") ||
  "no slots";

/** A cluster node's shards: each primary up or down, its slots, replicas and index mode. */
function ClusterShards({ nodeId, cluster }: { nodeId: string; cluster: ClusterInfo }) {
  return (
    <div className={styles.cluster}>
      <p className={styles.clusterHead}>
        cluster <span className="mono">{cluster.state ?? "?"}</span> ·{" "}
        {cluster.shards.length === 1 ? "1 shard" : `${cluster.shards.length} shards`}
        {cluster.slotsCovered < 16_384 &&
          ` · ${(16_384 - cluster.slotsCovered).toLocaleString()} slots unserved`}
      </p>
      <ul className={styles.shards} aria-label={`${nodeId} shards`}>
        {cluster.shards.map((shard) => (
          <li
            key={shard.address}
            className={styles[shard.status]}
            aria-label={`shard ${shard.address} ${shard.status}`}
            title={shard.error ?? `${shard.index.lockKeys.toLocaleString()} lock keys indexed`}
          >
            <span className="mono">{shard.address}</span>{" "}
            <span className={`badge badge-node-${shard.status}`}>{shard.status}</span>
            <br />
            <span className="muted">
              slots {slotText(shard.slotRanges)}
              {shard.replicas.length > 0 &&
                ` · ${shard.replicas.length} ${shard.replicas.length === 1 ? "replica" : "replicas"}`}
              {` · ${shard.index.mode}`}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function NodeCard({
  node,
  nodeCount,
  quorumSize,
}: {
  node: NodeInfo;
  nodeCount: number;
  quorumSize: number;
}) {
  return (
    <li
      className={`${styles.card} ${styles[node.status]}`}
      aria-label={`${node.id} ${node.status}`}
    >
      <div className={styles.head}>
        <strong>{node.id}</strong>
        <NodeStatusBadge status={node.status} />
      </div>
      <div className={`${styles.address} mono`} title={node.address}>
        {node.address}
        {node.tls ? " (TLS)" : ""}
        {node.kind === "cluster" ? " (cluster)" : ""}
      </div>
      <dl className={styles.facts}>
        <dt>ping</dt>
        <dd>{formatLatencyMs(node.latencyMs)}</dd>
        <dt>uptime</dt>
        <dd>{node.uptimeS === null ? "—" : formatUptimeS(node.uptimeS)}</dd>
        {node.quarantinedUntil !== null && (
          <>
            <dt>votes in</dt>
            <dd>
              <ValidityCountdown validUntilMs={node.quarantinedUntil} />
            </dd>
          </>
        )}
      </dl>
      <NodeDownNotice node={node} />
      <NodeRestartNotice node={node} nodeCount={nodeCount} quorumSize={quorumSize} />
      <NodeIndexStatus index={node.index} />
      <KeyspaceEventsAction node={node} />
      {node.cluster && <ClusterShards nodeId={node.id} cluster={node.cluster} />}
      {node.status !== "down" && node.error && <p className={styles.error}>{node.error}</p>}
      <NodeWarningChips node={node} />
      <NodeDetails node={node} />
    </li>
  );
}

/**
 * The configured nodes side by side: status, PING latency, uptime, quarantine, a down node's cause
 * and since when, a restart's cost to the locks, warnings, and how the index follows each; each
 * card's internals folded under "details".
 */
export function NodeStrip({ nodes, quorumSize }: { nodes: NodeInfo[]; quorumSize: number }) {
  const upCount = nodes.filter((node) => node.status === "up").length;
  return (
    <section aria-label="Nodes" className={styles.strip}>
      <p className={styles.summary}>
        <strong>{upCount}</strong> of {nodes.length} nodes up · quorum {quorumSize}
        {upCount < quorumSize && (
          <span className={styles.noQuorum}> · no quorum: locks cannot be taken</span>
        )}
      </p>
      <ul className={styles.list}>
        {nodes.map((node) => (
          <NodeCard key={node.id} node={node} nodeCount={nodes.length} quorumSize={quorumSize} />
        ))}
      </ul>
      <NodeWarningsDetails nodes={nodes} />
    </section>
  );
}
