/**
 * A lock's margin in words (how many nodes it can lose before it stands on a bare majority, or
 * below it), and the fix for a node that restarted empty: written once, for the server's warning
 * and the node cards alike. Pure.
 */
import type { LockMargin } from "./nodes";

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString("en")} ${count === 1 ? one : many}`;

/** "one more node lost and they stand on 3, the bare majority", for locks on `holders` nodes. */
export function marginWords(holders: number, quorumSize: number): string {
  const spare = holders - quorumSize;
  if (spare < 0) return "below the majority: another client can take them";
  if (spare === 0) return "the bare majority: one more node lost and another client can take them";
  if (spare === 1) return `one more node lost and they stand on ${quorumSize}, the bare majority`;
  return `${spare} more nodes lost and they stand on ${quorumSize}, the bare majority`;
}

/** "37 locks now hold on 4 of 5 nodes (one more node lost …)", one clause per group. */
export function lackingWords(
  margins: readonly LockMargin[],
  nodeCount: number,
  quorumSize: number,
): string {
  if (margins.length === 0) return "no held lock lacks it now";
  return margins
    .map(
      ({ holders, locks }) =>
        `${plural(locks, "lock", "locks")} now ${locks === 1 ? "holds" : "hold"} on ${holders} of ${nodeCount} nodes (${marginWords(holders, quorumSize)})`,
    )
    .join("; ");
}

/** The fix: Redlock's delayed restart, or persistence that survives a crash. */
export function restartFix(restartQuarantineMs: number): string {
  return restartQuarantineMs > 0
    ? `Restart quarantine is ${Math.round(restartQuarantineMs / 1_000)} s: keep it at least your longest lock TTL (in the console and restartQuarantine in your apps), or run the masters with appendonly yes and appendfsync always.`
    : "Fix: keep a restarted node out for at least your longest lock TTL (delayed restart: CONSOLE_RESTART_QUARANTINE_MS here and restartQuarantine in your apps), or run the masters with appendonly yes and appendfsync always so a restart keeps its locks.";
}
