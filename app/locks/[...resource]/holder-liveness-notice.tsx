import { HolderState } from "@/components/locks/holder-state";
import { FORCE_CONSEQUENCE } from "@/components/locks/holder-state-text";
import type { HolderSession } from "@/lib/api/holder-session";
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
  asked,
}: {
  plan: ForceReleasePlan;
  holderSession: HolderSession | null;
  /** The holder has been asked already: the advice to ask is not repeated. */
  asked: boolean;
}) {
  if (plan.kind === "force" && plan.why === "any-value")
    return (
      <p className="notice notice-warn" aria-label="Holder">
        Deletes whatever value each node holds, without reading its holder&apos;s liveness and
        without a tombstone: a holder that still runs may act as the owner alongside the next one.
      </p>
    );
  if (plan.kind === "force" && plan.why === "redisson")
    return (
      <p className="notice notice-warn" aria-label="Holder">
        A Redisson hash lock is deleted without a tombstone (its holder&apos;s commands would fail
        on a string key): nobody is kept out while its holder may still act as the owner.
      </p>
    );
  if (plan.kind === "force" && plan.why === "lift-tombstone")
    return (
      <p className="notice notice-warn" aria-label="Holder">
        This lock is already being released: a tombstone keeps everyone out until its holder has
        stopped or its validity ends. Forcing lifts the tombstone: the next process may get the lock
        before the holder has stopped.
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
      {plan.kind === "ask-first" && !asked && (
        <p>
          Ask it to release first: its routine is told to stop, and its library releases the lock
          itself. If it has not let go by the deadline, Force release is offered.
        </p>
      )}
      {plan.kind === "choose" && (
        <p>
          It cannot be asked to release, and the console cannot tell whether it still runs: choose
          below.
        </p>
      )}
    </div>
  );
}
