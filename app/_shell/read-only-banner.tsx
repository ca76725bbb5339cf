"use client";

import { useSession } from "../_queries/session";

/** Always visible while CONSOLE_READ_ONLY is on, so nobody wonders why actions are missing. */
export function ReadOnlyBanner() {
  const { data: session } = useSession();
  if (!session?.readOnly) return null;
  return (
    <div role="status" className="notice notice-warn read-only-banner">
      Read-only console: acquire, extend, release and force-release are disabled
      (CONSOLE_READ_ONLY).
    </div>
  );
}
