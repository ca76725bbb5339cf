import Link from "next/link";
import { ElapsedSince } from "@/components/locks/held-for";
import { HolderValue } from "@/components/locks/holder-value";
import { lockHref } from "@/components/locks/lock-href";
import { LockStateBadge } from "@/components/locks/state-badge";
import { LockValidity } from "@/components/locks/validity-countdown";
import { formatTimestamp } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { HolderSessionLock, HolderSessionWait } from "@/lib/api";
import { expiresAtMs } from "@/lib/api";

/** The locks one holder session holds (or whose tombstone still names it: being released). */
export function SessionLocksTable({
  locks,
  serverTimeMs,
}: {
  locks: HolderSessionLock[];
  serverTimeMs: number;
}) {
  return (
    <PlainTable label="Locks held" columns={["Resource", "State", "Validity", "Value"]}>
      {locks.map((lock) => (
        <tr key={lock.resourceBase64 ?? lock.resource}>
          <td className="wrap-anywhere">
            <Link href={lockHref(lock.resource, lock.resourceBase64)}>{lock.resource}</Link>
          </td>
          <td>
            <LockStateBadge state={lock.state} />
          </td>
          <td className="nowrap">
            <LockValidity validUntilMs={expiresAtMs(lock.validityMs, serverTimeMs)} />
          </td>
          <td>
            <HolderValue value={lock.value} />
          </td>
        </tr>
      ))}
    </PlainTable>
  );
}

/** The resources one holder session waits for. */
export function SessionWaitsTable({ waits }: { waits: HolderSessionWait[] }) {
  return (
    <PlainTable label="Waits" columns={["Resource", "Waiting for", "Gives up at"]}>
      {waits.map((wait) => (
        <tr key={wait.waiterId}>
          <td className="wrap-anywhere">
            <Link href={lockHref(wait.resource, wait.resourceBase64)}>{wait.resource}</Link>
          </td>
          <td className="nowrap">
            <ElapsedSince sinceMs={wait.since} label="waiting for" />
          </td>
          <td className="nowrap">{formatTimestamp(wait.expiresAt)}</td>
        </tr>
      ))}
    </PlainTable>
  );
}
