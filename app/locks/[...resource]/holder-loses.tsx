import { OwnerExtension } from "@/components/locks/owner-extension";
import { ElapsedSince } from "@/components/locks/held-for";
import { LockOwnerLabel, OwnerLabels, ReleasingHolderLabel } from "@/components/locks/lock-owner";
import { formatTimestamp } from "@/components/ui/format";
import type { HolderSession } from "@/lib/api";
import type { LockRow } from "@/lib/api";

/** Who loses the lock, and since when they held it, as the operator saw it when opening the dialog. */
export function HolderLoses({
  lock,
  holderSession,
}: {
  lock: LockRow;
  holderSession: HolderSession | null;
}) {
  const { owner } = lock;
  if (owner.kind === "unknown") {
    return (
      <p aria-label="Who loses the lock">
        Who loses it:{" "}
        {lock.state === "releasing" ? (
          <ReleasingHolderLabel labels={holderSession?.labels ?? null} />
        ) : (
          <>
            <LockOwnerLabel owner={owner} />{" "}
            <span className="muted">(no owner entry: held since an unknown time)</span>
          </>
        )}
      </p>
    );
  }
  return (
    <div className="notice notice-warn" aria-label="Who loses the lock">
      <p>
        Who loses it: <OwnerLabels labels={owner.labels} truncated={owner.truncatedLabels} />
      </p>
      <p>
        Holding it since {formatTimestamp(owner.acquiredAt)} (for{" "}
        <ElapsedSince sinceMs={owner.acquiredAt} />
        )<OwnerExtension owner={owner} prefix=", " />
        {lock.waiters.count > 0 && `; ${lock.waiters.count} waiting for it`}.
      </p>
    </div>
  );
}
