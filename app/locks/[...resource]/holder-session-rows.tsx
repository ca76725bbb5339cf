import Link from "next/link";
import { HeartbeatAgo, HolderState } from "@/components/locks/holder-state";
import { OwnerLabels } from "@/components/locks/lock-owner";
import type { HolderSession } from "@/lib/api";

/** What to do about a holder in trouble, said beside its state. */
const FIX: Partial<Record<HolderSession["state"], string>> = {
  unresponsive:
    "Force-release… asks it to let go first; forcing then keeps everyone out until it stops or its validity ends.",
  gone: "Force-release… releases it at once: it probably crashed, but a closed connection is no proof.",
};

/** The holder's session in the lock's summary: state in words, heartbeat, labels, id. */
export function HolderSessionRows({ holderSession }: { holderSession: HolderSession }) {
  const { id, state } = holderSession;
  return (
    <>
      <dt>Holder session</dt>
      <dd>
        <HolderState session={holderSession} subject="session" />
        {FIX[state] && <div className="muted">{FIX[state]}</div>}
      </dd>
      {id !== null && (
        <>
          <dt>Last heartbeat</dt>
          <dd>
            <HeartbeatAgo lastSeenAt={holderSession.lastSeenAt} />
          </dd>
          <dt>Session</dt>
          <dd>
            <Link href={`/sessions/${id}`} aria-label={`Holder session ${id}`}>
              <code>{id}</code>
            </Link>
            <div>
              <OwnerLabels labels={holderSession.labels} />
            </div>
          </dd>
        </>
      )}
    </>
  );
}
