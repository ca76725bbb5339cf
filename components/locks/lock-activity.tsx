import type { LockRow } from "@/lib/api";

/** The last hour of a lock, on its overview row: how often it changed hands, and expiries while held. */
export function LockActivity({ activity }: { activity: LockRow["activity"] }) {
  if (!activity || (activity.handsLastHour === 0 && activity.expiredLastHour === 0)) return null;
  return (
    <span className="lock-flags">
      {activity.handsLastHour > 0 && (
        <span
          className="badge badge-index-listing"
          title="Times this lock changed hands in the last hour"
          data-testid="hands-last-hour"
        >
          ⇄ {activity.handsLastHour.toLocaleString()}/h
        </span>
      )}
      {activity.expiredLastHour > 0 && (
        <span
          className="badge badge-conflict"
          title="Holds that expired instead of being released in the last hour: a holder crashed, hung or paused past its TTL"
          data-testid="expired-last-hour"
        >
          expired while held ×{activity.expiredLastHour}
        </span>
      )}
    </span>
  );
}
