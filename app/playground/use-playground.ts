"use client";

import { useState } from "react";
import type { Attempt, LockGrant } from "@/lib/api";
import { ApiError } from "../_queries/api-fetch";
import { useAcquire, useExtend, useRelease } from "../_queries/lock-actions";

export type Operation = "acquire" | "extend" | "release";

/** The outcome of the last button pressed, for the result panel. */
export interface OperationRecord {
  operation: Operation;
  summary: string;
  latencyMs: number | null;
  attempts: Attempt[];
  error: ApiError | Error | null;
}

function attemptsOf(error: unknown): Attempt[] {
  const details =
    error instanceof ApiError ? (error.details as { attempts?: unknown } | undefined) : undefined;
  return Array.isArray(details?.attempts) ? (details.attempts as Attempt[]) : [];
}

function failed(operation: Operation, error: Error): OperationRecord {
  return {
    operation,
    summary: `${operation} failed`,
    latencyMs: null,
    attempts: attemptsOf(error),
    error,
  };
}

/** The lock held from this page and the actions on it; every answer lands in `record`. */
export function usePlayground() {
  const [held, setHeld] = useState<LockGrant | null>(null);
  const [record, setRecord] = useState<OperationRecord | null>(null);
  const acquire = useAcquire();
  const extend = useExtend();
  const release = useRelease();

  const onGrant = (operation: Operation) => ({
    onSuccess: ({ lock }: { lock: LockGrant }) => {
      setHeld(lock);
      const fencing = lock.fencingToken === null ? "" : `, fencing token ${lock.fencingToken}`;
      const summary = `${operation === "acquire" ? "Acquired" : "Extended"} for ${lock.ttlMs} ms${fencing}`;
      setRecord({
        operation,
        summary,
        latencyMs: lock.latencyMs,
        attempts: lock.attempts,
        error: null,
      });
    },
    onError: (error: Error) => setRecord(failed(operation, error)),
  });

  return {
    held,
    record,
    pending: acquire.isPending || extend.isPending || release.isPending,
    acquire: (resources: string[], ttlMs: number, fencing: boolean) =>
      acquire.mutate({ resources, ttlMs, fencing }, onGrant("acquire")),
    extend: (ttlMs: number) =>
      held &&
      extend.mutate({ resources: held.resources, value: held.value, ttlMs }, onGrant("extend")),
    release: () =>
      held &&
      release.mutate(
        { resources: held.resources, value: held.value },
        {
          onSuccess: (result) => {
            setHeld(null);
            const summary = `Released: the value was deleted on ${result.releasedCount} nodes`;
            setRecord({
              operation: "release",
              summary,
              latencyMs: result.latencyMs,
              attempts: result.attempts,
              error: null,
            });
          },
          onError: (error) => setRecord(failed("release", error)),
        },
      ),
  };
}
