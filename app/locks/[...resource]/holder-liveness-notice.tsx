import { HolderState } from "@/components/locks/holder-state";
import { FORCE_CONSEQUENCE } from "@/components/locks/holder-state-text";
import type { HolderSession } from "@/lib/api";
import type { ForceReleasePlan } from "./force-release-plan";

const NOTICE_CLASS: Record<HolderSession["state"], string> = {
  alive: "notice notice-info",
  unresponsive: "notice notice-warn",
  gone: "notice notice-info",
  unknown: "notice notice-warn",
};

/** What the dialog says of the lock's holder: its liveness in words, and what forcing does to it. */
export function HolderLivenessNotice({
  plan,
  holderSession,
  askWords,
}: {
  plan: ForceReleasePlan;
  holderSession: HolderSession | null;
  /** What asking can do for this holder (dialog-actions.ts); null once asked, or not offered. */
  askWords: string | null;
}) {
  if (plan.kind === "force" && plan.why === "any-value")
    return (
      <p className="notice notice-warn" aria-label="Holder">
        Replaces whatever value each node holds with a tombstone of it, without reading its
        holder&apos;s liveness: nobody gets the lock before each value&apos;s validity ends, unless
        its holder acknowledges first; every holder session found is told.
      </p>
    );
  if (plan.kind === "force" && plan.why === "redisson")
    return (
      <p className="notice notice-warn" aria-label="Holder">
        A Redisson hash lock cannot hold a tombstone (its holder&apos;s commands would fail on a
        string key): it can only be deleted, which only the explicit delete-now does, and the next
        holder may then act alongside this one. The console refuses it otherwise.
      </p>
    );
  if (plan.kind === "force" && plan.why === "lift-tombstone")
    return (
      <p className="notice notice-warn" aria-label="Holder">
        This lock is already being released: a tombstone keeps everyone out until its holder has
        stopped or its validity ends. Forcing again changes nothing (a tombstone is never
        lengthened); only the explicit delete-now lifts it.
      </p>
    );
  const session = holderSession ?? { state: "unknown" as const, lastSeenAt: null };
  const state = plan.kind === "choose" ? "unknown" : session.state;
  return (
    <div className={NOTICE_CLASS[state]} aria-label="Holder">
      <p>
        <HolderState
          session={plan.kind === "choose" ? { state, lastSeenAt: null } : session}
          subject="holder"
          consequence={FORCE_CONSEQUENCE[state]}
        />
        .
      </p>
      {plan.kind === "ask-first" && askWords && <p>{askWords}</p>}
      {plan.kind === "choose" && (
        <p>
          It cannot be asked to release, and the console cannot tell whether it still runs: choose
          below.
        </p>
      )}
    </div>
  );
}
