import type { NodeInfo, NodeWarningCode } from "@/lib/api/nodes";
import styles from "./node-strip.module.css";

const SHORT_LABEL: Record<NodeWarningCode, string> = {
  no_persistence: "no persistence",
  weak_fsync: "weak fsync",
  evicting_policy: "evicts keys",
  not_master: "not a master",
  clock_skew: "clock skew",
  unreachable: "unreachable",
  cluster_replicas: "replicas: failover",
  cluster_degraded: "cluster degraded",
};

/** A node's warnings as short chips; the full explanation is in the title and in NodeWarningsDetails. */
export function NodeWarningChips({ node }: { node: NodeInfo }) {
  if (node.warnings.length === 0) return null;
  return (
    <ul className={styles.warnings} aria-label={`${node.id} warnings`}>
      {node.warnings.map((warning) => (
        <li key={warning.code} title={warning.message}>
          ⚠ {SHORT_LABEL[warning.code] ?? warning.code}
        </li>
      ))}
    </ul>
  );
}

/** Every distinct warning once, with the nodes it applies to, folded under a summary line. */
export function NodeWarningsDetails({ nodes }: { nodes: NodeInfo[] }) {
  const byMessage = new Map<string, string[]>();
  for (const node of nodes) {
    for (const warning of node.warnings)
      byMessage.set(warning.message, [...(byMessage.get(warning.message) ?? []), node.id]);
  }
  if (byMessage.size === 0) return null;
  return (
    <details className={styles.details}>
      <summary>
        {byMessage.size === 1 ? "1 warning" : `${byMessage.size} warnings`} about the nodes’
        configuration
      </summary>
      <ul>
        {[...byMessage].map(([message, nodeIds]) => (
          <li key={message}>
            <strong>{nodeIds.length === nodes.length ? "All nodes" : nodeIds.join(", ")}:</strong>{" "}
            {message}
          </li>
        ))}
      </ul>
    </details>
  );
}
