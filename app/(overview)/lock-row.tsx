import { OwnerExtension } from "@/components/locks/owner-extension";
import Link from "next/link";
import { memo, type CSSProperties } from "react";
import { ElapsedSince } from "@/components/locks/held-for";
import { HolderAlertBadge } from "@/components/locks/holder-alert-badge";
import { HolderValue } from "@/components/locks/holder-value";
import { LockActivity } from "@/components/locks/lock-activity";
import { LockFlags } from "@/components/locks/lock-flags";
import { groupBadgeText } from "@/components/locks/group-text";
import { lockHref } from "@/components/locks/lock-href";
import { LockOwnerLabel, ReleasingHolderLabel } from "@/components/locks/lock-owner";
import { LockStateBadge } from "@/components/locks/state-badge";
import { LockValidity } from "@/components/locks/validity-countdown";
import type { LiveLockRow } from "@/lib/api";
import type { HolderAlert } from "./holder-alerts";
import { NodePresence } from "./node-presence";
import styles from "./locks-table.module.css";

interface LockRowViewProps {
  row: LiveLockRow;
  /** 1-based position among all rows, header included (aria-rowindex). */
  rowIndex: number;
  style: CSSProperties;
  /** The holder's session is unresponsive or gone; undefined when alive or not known. */
  holderAlert?: HolderAlert;
  /** A releasing row: the labels of the session its tombstone names; null when not known. */
  releasingLabels?: Record<string, string> | null;
}

/** Characters of a long name kept whole at its end: the part that tells similar names apart. */
const NAME_TAIL_CHARS = 12;

/**
 * The resource as a link: a long name is cut in its middle ("payroll-export-…-2024-06-01"), so
 * both its start and its end stay readable; the full name is the link's name and its tooltip.
 */
function ResourceLink({ href, resource }: { href: string; resource: string }) {
  const cut = resource.length > NAME_TAIL_CHARS * 2;
  return (
    <Link href={href} title={resource} aria-label={resource} className={styles.resourceName}>
      {cut ? (
        <>
          <span className={styles.nameHead}>{resource.slice(0, -NAME_TAIL_CHARS)}</span>
          <span className={styles.nameTail}>{resource.slice(-NAME_TAIL_CHARS)}</span>
        </>
      ) : (
        <span className={styles.nameHead}>{resource}</span>
      )}
    </Link>
  );
}

/** "2 · 5.0 s": how many wait, and for how long the first of them has waited. */
function WaitersCell({ waiters }: { waiters: LiveLockRow["waiters"] }) {
  if (waiters.count === 0) return <span className="muted">0</span>;
  return (
    <span title="Waiters, and how long the oldest has waited">
      {waiters.count} · <ElapsedSince sinceMs={waiters.oldestSince} label="oldest wait" />
    </span>
  );
}

/** One lock: memoised so a poll re-renders only the rows whose data changed. */
export const LockRowView = memo(function LockRowView({
  row,
  rowIndex,
  style,
  holderAlert,
  releasingLabels = null,
}: LockRowViewProps) {
  const href = lockHref(row.resource, row.resourceBase64);
  return (
    <div role="row" aria-rowindex={rowIndex} className={styles.row} style={style}>
      <span role="cell" className={styles.resource}>
        <ResourceLink href={href} resource={row.resource} />
        {/* Under the name, so the badges never take the name's width. */}
        <span className={styles.resourceBadges}>
          {row.format === "redisson-hash" && <span className="muted">Redisson</span>}
          {groupBadgeText(row) && <span className="muted">{groupBadgeText(row)}</span>}
          <LockFlags flags={row.flags} />
          <LockActivity activity={row.activity} />
          {holderAlert && holderAlert.state !== "alive" && holderAlert.state !== "unknown" && (
            <HolderAlertBadge
              state={holderAlert.state}
              lastSeenAt={holderAlert.lastSeenAt}
              href={href}
            />
          )}
        </span>
      </span>
      <span role="cell" className={styles.state}>
        <LockStateBadge state={row.state} />
      </span>
      <span
        role="cell"
        className={styles.quorum}
        aria-label={`quorum ${row.quorum} of ${row.nodes.length}`}
      >
        {row.quorum}/{row.nodes.length}
      </span>
      <span role="cell" className={styles.owner}>
        {row.state === "releasing" && row.owner.kind === "unknown" ? (
          <ReleasingHolderLabel labels={releasingLabels} />
        ) : (
          <LockOwnerLabel owner={row.owner} />
        )}
      </span>
      <span role="cell" className={styles.held}>
        <ElapsedSince sinceMs={row.heldSince} label="held for" />
        {row.owner.kind === "labelled" && <OwnerExtension owner={row.owner} prefix=" ↻ " />}
      </span>
      <span role="cell" className={styles.waiters}>
        <WaitersCell waiters={row.waiters} />
      </span>
      <span role="cell" className={styles.holder}>
        <HolderValue value={row.value} />
      </span>
      <span role="cell" className={styles.nodes}>
        <NodePresence nodes={row.nodes} value={row.value} />
      </span>
      <span role="cell" className={styles.validity}>
        <LockValidity validUntilMs={row.validUntilMs} />
      </span>
    </div>
  );
});
