"use client";

import { useMemo } from "react";
import type { HolderSessionSummary } from "@/lib/api";
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

/**
 * Resource → the labels of the session a tombstoned ("releasing") lock was taken from: the row's
 * owner is unknown for a tombstone (it carries the replaced holder's session, not its labels), so
 * the name comes from the session's heartbeat, as the sessions list reads it. A resource missing
 * here: the name is not known (the row says so).
 */
export function useReleasingHolders(): ReadonlyMap<string, Record<string, string>> {
  const { data } = useHolderSessions();
  return useMemo(() => {
    const names = new Map<string, Record<string, string>>();
    for (const session of data?.sessions ?? [])
      for (const lock of session.locks)
        if (lock.state === "releasing") names.set(lock.resource, session.labels);
    return names;
  }, [data]);
}
