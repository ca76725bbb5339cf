"use client";

import { useMemo } from "react";
import type { HolderSessionSummary } from "@/lib/api/holder-sessions";
import { useHolderSessions } from "../_queries/holder-sessions";

/** A holder the on-call engineer should look at: its session is late or gone. */
export type HolderAlert = Pick<HolderSessionSummary, "id" | "state" | "lastSeenAt">;

/**
 * Resource → the holder alert of the session holding it, for the sessions that are unresponsive or
 * gone. Read from the holder sessions list (one server read serves every viewer), so the table
 * says which rows hold a lock for a process that may be dead, without a read per row.
 */
export function useHolderAlerts(): ReadonlyMap<string, HolderAlert> {
  const { data } = useHolderSessions();
  return useMemo(() => {
    const alerts = new Map<string, HolderAlert>();
    for (const session of data?.sessions ?? []) {
      if (session.state !== "unresponsive" && session.state !== "gone") continue;
      const alert = { id: session.id, state: session.state, lastSeenAt: session.lastSeenAt };
      for (const lock of session.locks) alerts.set(lock.resource, alert);
    }
    return alerts;
  }, [data]);
}
