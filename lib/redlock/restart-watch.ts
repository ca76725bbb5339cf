import { performance } from "node:perf_hooks";
import { NodeQuarantinedError } from "./errors";
import type { IoredisClient as Client } from "./client-adapter";

const parseInfoField = (info: string, field: string) =>
  new RegExp(`^${field}:(.*)$`, "m").exec(info)?.[1]?.trim();

/**
 * Learns when a node's Redis process started, once per (re)connection, from INFO server, and
 * withholds the node's vote until `restartQuarantineMs` after that start. A restarted master may have
 * lost its keys, so it could otherwise grant a lock that is still held elsewhere. The start time is
 * kept on the monotonic clock, so a wall-clock jump cannot shorten the quarantine. Lock operations
 * pay nothing for it: INFO runs only when a connection becomes ready.
 */
export class RestartWatch {
  private startedAtMono: number | undefined;
  private pendingCheck: Promise<void> | undefined;
  uptimeS: number | undefined;
  runId: string | undefined;
  /** Bumped at every disconnection: an answer that crossed one may come from a restarted process. */
  connectionGeneration = 0;

  constructor(
    private readonly client: Client,
    private readonly quarantineMs: number | false,
  ) {
    if (quarantineMs === false || typeof client.on !== "function") return;
    client.on("close", () => {
      this.connectionGeneration += 1;
      this.forget();
    });
    client.on("ready", () => this.check());
    if ((client as { status?: string }).status === "ready") this.check();
    else this.forget();
  }

  get enabled(): boolean {
    return this.quarantineMs !== false;
  }

  /** Epoch ms until which the node is quarantined, if it is now. */
  quarantinedUntil(): number | undefined {
    if (this.quarantineMs === false || this.startedAtMono === undefined) return undefined;
    const remainingMs = this.startedAtMono + this.quarantineMs - performance.now();
    return remainingMs > 0 ? Date.now() + remainingMs : undefined;
  }

  /** True while the node's start time is not yet known since its last (re)connection. */
  get isUnknown(): boolean {
    return this.enabled && this.startedAtMono === undefined;
  }

  /** Resolves when the restart check of the current connection is done (immediately when it is). */
  async ready(): Promise<void> {
    if (this.isUnknown) await (this.pendingCheck ?? this.check());
  }

  /** The reason to withhold this node's vote now, if any. */
  quarantineError(address: string): NodeQuarantinedError | undefined {
    const until = this.quarantinedUntil();
    return until === undefined ? undefined : new NodeQuarantinedError(address, until);
  }

  private forget(): void {
    this.startedAtMono = undefined;
  }

  private check(): Promise<void> {
    this.forget();
    const check = (this.client.info("server") as Promise<string>).then(
      (info) => {
        const uptimeS = Number(parseInfoField(info, "uptime_in_seconds"));
        this.uptimeS = uptimeS;
        this.runId = parseInfoField(info, "run_id");
        // uptime_in_seconds is the difference of two whole-second timestamps (now and start), so it
        // reads 1 a few ms after a start just before a second ticks over: the latest the process can
        // have started is (uptime - 1) s ago.
        if (Number.isFinite(uptimeS))
          this.startedAtMono = performance.now() - Math.max(0, uptimeS - 1) * 1000;
      },
      () => undefined, // the next "ready" retries; until then the node stays unknown (no vote)
    );
    this.pendingCheck = check;
    void check.finally(() => {
      if (this.pendingCheck === check) this.pendingCheck = undefined;
    });
    return check;
  }
}
