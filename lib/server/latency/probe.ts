import "server-only";
/**
 * The latency probe: acquires and releases a short lock on `redlock:probe:<console id>` on a
 * schedule and after every manual action. Its votes reach the history through the library's
 * "operation" events; here we only drive it. One probe at a time: a slow cluster is not piled on.
 */
import { randomUUID } from "node:crypto";
import type Redlock from "@redlock-console/redlock";
import { logger } from "../logger";
import { PROBE_PREFIX } from "./latency-history";

const PROBE_TTL_MS = 2_000;

export interface Probe {
  /** Runs one probe now (or joins the one in flight). Never throws. */
  runOnce(): Promise<void>;
  start(): void;
  stop(): void;
}

export function createProbe(redlock: Redlock, intervalMs: number): Probe {
  const resource = `${PROBE_PREFIX}${randomUUID()}`;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const probeOnce = async () => {
    try {
      const lock = await redlock.acquire([resource], PROBE_TTL_MS, { retryCount: 0 });
      await redlock.release(lock);
    } catch (error) {
      logger.debug(
        { error: error instanceof Error ? error.message : String(error) },
        "latency probe failed",
      );
    }
  };

  const runOnce = () => {
    inFlight ??= probeOnce().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  return {
    runOnce,
    start() {
      if (timer || intervalMs <= 0) return;
      timer = setInterval(() => void runOnce(), intervalMs);
      timer.unref(); // the probe never keeps a process (or a test run) alive on its own
      void runOnce();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
