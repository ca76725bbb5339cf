import Link from "next/link";
import { memo, type CSSProperties } from "react";
import { keyParamFor } from "@/lib/api/resource-key";
import { HolderValue } from "./holder-value";
import type { LocksTableRow } from "./locks-table";
import { NodePresence } from "./node-presence";
import { LockStateBadge } from "./state-badge";
import { ValidityCountdown } from "./validity-countdown";
import styles from "./locks-table.module.css";

/** A key that is not UTF-8 (or very long) is opened by its bytes: `?key=<base64url>`. */
export function lockHref(resource: string, resourceBase64?: string): string {
  const key = keyParamFor(resource, resourceBase64);
  if (key === undefined) return `/locks/${encodeURIComponent(resource)}`;
  return `/locks/${encodeURIComponent(resource.slice(0, 64))}?key=${key}`;
}

interface LockRowViewProps {
  row: LocksTableRow;
  /** 1-based position among all rows, header included (aria-rowindex). */
  rowIndex: number;
  style: CSSProperties;
}

/** One lock: memoised so a poll re-renders only the rows whose data changed. */
export const LockRowView = memo(function LockRowView({ row, rowIndex, style }: LockRowViewProps) {
  return (
    <div role="row" aria-rowindex={rowIndex} className={styles.row} style={style}>
      <span role="cell" className={styles.resource}>
        <Link href={lockHref(row.resource, row.resourceBase64)} title={row.resource}>
          {row.resource}
        </Link>
        {row.format === "redisson-hash" && <span className="muted"> (Redisson)</span>}
      </span>
      <span role="cell" className={styles.state}>
        <LockStateBadge state={row.state} />
      </span>
      <span role="cell" className={styles.quorum} aria-label={`quorum ${row.quorum} of ${row.nodes.length}`}>
        {row.quorum}/{row.nodes.length}
      </span>
      <span role="cell" className={styles.holder}>
        <HolderValue value={row.value} />
      </span>
      <span role="cell" className={styles.nodes}>
        <NodePresence nodes={row.nodes} value={row.value} />
      </span>
      <span role="cell" className={styles.validity}>
        <ValidityCountdown validUntilMs={row.validUntilMs} neverExpires={row.validityMs === -1} />
      </span>
    </div>
  );
});
