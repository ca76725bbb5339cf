"use client";

import Link from "next/link";
import { useSession } from "../_queries/session";

/**
 * Break-glass is never quiet: whoever uses the shared admin token sees that every action is audited
 * as break-glass, and admins signed in as themselves see its latest use (any replica, last 24 h).
 */
export function BreakGlassBanner() {
  const { data: session } = useSession();
  if (!session) return null;
  if (session.credential === "break-glass") {
    return (
      <div role="status" className="notice notice-warn read-only-banner">
        You are using the break-glass admin token: every action is audited as break-glass and
        counted.
        {session.signIn && ` Sign in with ${session.signIn.providerName} when it is back.`}
      </div>
    );
  }
  const use = session.breakGlassLastUse;
  if (!use) return null;
  return (
    <div role="status" className="notice notice-warn read-only-banner">
      The break-glass admin token was used at {new Date(use.at).toLocaleString()} ({use.label}), in
      the last 24 hours. <Link href="/audit">See the audit</Link>.
    </div>
  );
}
