/** The warnings an operator must see about one node, derived from what it reported. Pure. */
import type { NodeWarning } from "@/lib/api";
import type { RawNodeInfo } from "./read-node-info";

export interface WarningPolicy {
  readonly restartQuarantineMs: number;
  readonly clockSkewWarnMs: number;
}

function persistenceWarnings(raw: RawNodeInfo, policy: WarningPolicy): NodeWarning[] {
  const aofEnabled = raw.info.aof_enabled === "1";
  const rdbEnabled = raw.saveConfig !== null && raw.saveConfig.trim() !== "";
  if (!aofEnabled && !rdbEnabled && policy.restartQuarantineMs === 0) {
    return [
      {
        code: "no_persistence",
        message:
          "No AOF or RDB persistence and restart quarantine is off: if this node crashes and restarts empty, it can grant a lock that is still held elsewhere. Enable appendonly with appendfsync always, or set CONSOLE_RESTART_QUARANTINE_MS (and restartQuarantine in your apps) to at least your longest TTL.",
      },
    ];
  }
  if (aofEnabled && raw.appendfsync === "no") {
    return [
      {
        code: "weak_fsync",
        message:
          "appendfsync is 'no': a crash may lose recently written locks. Use 'always' (safest) or 'everysec'.",
      },
    ];
  }
  return [];
}

export function nodeWarnings(raw: RawNodeInfo, policy: WarningPolicy): NodeWarning[] {
  const warnings = persistenceWarnings(raw, policy);
  const evictionPolicy = raw.info.maxmemory_policy;
  if (evictionPolicy && evictionPolicy !== "noeviction") {
    warnings.push({
      code: "evicting_policy",
      message: `maxmemory-policy is ${evictionPolicy}: under memory pressure the node evicts keys, and lock keys (which all carry a TTL) are evicted first by volatile-* policies. Use noeviction.`,
    });
  }
  if (raw.info.role && raw.info.role !== "master") {
    warnings.push({
      code: "not_master",
      message: `The node is a ${raw.info.role}: Redlock needs independent masters, not replicas.`,
    });
  }
  if (Math.abs(raw.clockSkewMs) > policy.clockSkewWarnMs) {
    warnings.push({
      code: "clock_skew",
      message: `The node's clock is ${raw.clockSkewMs} ms off the console's: TTLs still run on each node's own clock, but a clock jump on a node expires its locks early or late.`,
    });
  }
  return warnings;
}
