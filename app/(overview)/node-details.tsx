import { EventReadsSummary } from "@/components/locks/event-reads";
import type { NodeInfo } from "@/lib/api";
import styles from "./node-strip.module.css";

const bytesText = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(0)} KiB`
    : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

const orDash = (text: string | number | null | undefined) =>
  text === null || text === undefined ? "—" : String(text);

/**
 * A node's internals, folded by default: what it runs and how it is configured, and what the live
 * index reads on it (with a narrower LOCK_MATCH when one would do). The card's face keeps what an
 * operator must see at once: status, problems and their fixes.
 */
export function NodeDetails({ node }: { node: NodeInfo }) {
  const reads = node.index.mode === "watching" ? node.index.eventReads : null;
  if (node.status === "down" && !reads) return null;
  return (
    <details className={styles.more} data-testid="node-details">
      <summary>details</summary>
      {node.status !== "down" && (
        <dl className={styles.facts}>
          <dt>redis</dt>
          <dd>{orDash(node.redisVersion)}</dd>
          <dt>role</dt>
          <dd>{orDash(node.role)}</dd>
          <dt>keys</dt>
          <dd>{orDash(node.keyCount?.toLocaleString())}</dd>
          <dt>memory</dt>
          <dd>{node.usedMemoryBytes === null ? "—" : bytesText(node.usedMemoryBytes)}</dd>
          <dt>eviction</dt>
          <dd className="mono">{orDash(node.maxmemoryPolicy)}</dd>
          <dt>AOF</dt>
          <dd>{node.aofEnabled === null ? "—" : node.aofEnabled ? "on" : "off"}</dd>
          <dt>run id</dt>
          <dd className="mono" title={node.runId ?? undefined}>
            {node.runId ? `${node.runId.slice(0, 12)}…` : "—"}
          </dd>
        </dl>
      )}
      {reads && <EventReadsSummary reads={reads} />}
    </details>
  );
}
