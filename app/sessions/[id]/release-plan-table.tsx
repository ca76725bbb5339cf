import Link from "next/link";
import { lockHref } from "@/components/locks/lock-href";
import { shortValue } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { HolderSessionReleaseLock } from "@/lib/api";

const MODE_TEXT: Record<HolderSessionReleaseLock["mode"], string> = {
  tombstoned:
    "replaced by a tombstone: nobody else gets it before the holder has stopped, at most until its current validity ends",
  deleted: "deleted at once",
  unchanged: "left as it is: nothing written",
  absent: "nothing to release: the lock was already gone",
};

/** What is planned for one lock (preview), in words. */
function planText(lock: HolderSessionReleaseLock): string {
  if (lock.action === "ask")
    return (
      "asked to release by the deadline (the holder stops and lets go itself); past it, force release: " +
      MODE_TEXT.tombstoned
    );
  return MODE_TEXT[lock.mode];
}

/** One lock's outcome after the release, in words. */
function outcomeText(lock: HolderSessionReleaseLock): string {
  const nodeCount = lock.nodes?.length ?? 0;
  switch (lock.outcome) {
    case "asked":
      return `asked to release (marked on ${lock.markedCount ?? 0} of ${nodeCount} nodes)`;
    case "released":
      return lock.mode === "tombstoned"
        ? `tombstoned on ${lock.tombstonedCount ?? 0} of ${nodeCount} nodes`
        : `deleted on ${lock.deletedCount ?? 0} of ${nodeCount} nodes`;
    case "value_changed":
      return "left alone: its value changed since the preview (another holder, or already released)";
    case "absent":
      return "nothing to release: the lock was already gone";
    case "unavailable":
      return "not asked: too few nodes answered to reach the holder's majority";
    default:
      return planText(lock);
  }
}

/** The locks of a session's release: what will be done (preview) or what was done (result). */
export function ReleasePlanTable({
  locks,
  label,
}: {
  locks: HolderSessionReleaseLock[];
  label: string;
}) {
  const isResult = locks.some((lock) => lock.outcome !== undefined);
  return (
    <PlainTable
      label={label}
      columns={["Resource", "Value", isResult ? "Outcome" : "What happens"]}
    >
      {locks.map((lock) => (
        <tr key={lock.resourceBase64 ?? lock.resource}>
          <td className="wrap-anywhere">
            <Link href={lockHref(lock.resource, lock.resourceBase64)}>{lock.resource}</Link>
          </td>
          <td>
            <code title={lock.value}>{shortValue(lock.value)}</code>
          </td>
          <td>{outcomeText(lock)}</td>
        </tr>
      ))}
    </PlainTable>
  );
}
