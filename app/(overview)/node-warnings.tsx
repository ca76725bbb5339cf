import type { NodeInfo, NodeWarning, NodeWarningCategory, NodeWarningCode } from "@/lib/api";
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
  restarted: "restarted",
};

/** A server that predates categories: its codes say what they are about. */
const CATEGORY: Partial<Record<NodeWarningCode, NodeWarningCategory>> = {
  unreachable: "down",
  restarted: "restart",
};

/**
 * Configuration warnings only: a node down or restarted says so on its card, with its cause and
 * fix, and is not a configuration matter.
 */
const isConfiguration = (warning: NodeWarning) =>
  (warning.category ?? CATEGORY[warning.code] ?? "configuration") === "configuration";

/** A node's configuration warnings as short chips; the full explanation is in the title and in NodeWarningsDetails. */
export function NodeWarningChips({ node }: { node: NodeInfo }) {
  const warnings = node.warnings.filter(isConfiguration);
  if (warnings.length === 0) return null;
  return (
    <ul className={styles.warnings} aria-label={`${node.id} warnings`}>
      {warnings.map((warning) => (
        <li key={warning.code} title={warning.message}>
          ⚠ {SHORT_LABEL[warning.code] ?? warning.code}
        </li>
      ))}
    </ul>
  );
}

/** Every distinct configuration warning once, with the nodes it applies to, folded under a summary line. */
export function NodeWarningsDetails({ nodes }: { nodes: NodeInfo[] }) {
  const byMessage = new Map<string, string[]>();
  for (const node of nodes) {
    for (const warning of node.warnings.filter(isConfiguration))
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
