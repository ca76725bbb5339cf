import { createHash } from "node:crypto";
import { NodeUnavailableError } from "./errors";
import { evalScript, isNoScript, sendBatch, type QueuedCommand } from "./batch";
import { RestartWatch } from "./restart-watch";
import { adaptClient, describeClient, type Client, type IoredisClient } from "./client-adapter";

export interface Script {
  readonly body: string;
  readonly sha: string;
}

export const script = (body: string): Script => ({
  body,
  sha: createHash("sha1").update(body).digest("hex"),
});

/** Most operations one batch script call carries. */
const MAX_BATCH = 256;

/** Connection states in which ioredis sends (or briefly queues until connected) a command. */
const SENDABLE_STATUSES = new Set(["ready", "connect", "connecting", "wait"]);

/**
 * One Redis master as the algorithm sees it. It refuses to send while it has commands overdue past
 * `nodeTimeout`: a paused node otherwise collects one queued command per operation, without bound.
 */
export class RedlockNode {
  readonly address: string;
  readonly restartWatch: RestartWatch;
  private overdueCount = 0;
  private batch: QueuedCommand[] = [];
  private readonly batches: boolean;
  /** The client as the library drives it (node-redis clients through their adapter). */
  private readonly connection: IoredisClient;

  constructor(
    /** The client as the caller gave it: the key of `votesFor`/`votesAgainst`. */
    readonly client: Client,
    readonly index: number,
    restartQuarantineMs: number | false,
  ) {
    this.connection = adaptClient(client);
    this.address = describeClient(client);
    // A Cluster routes each key to its own shard, so only single-node clients batch into one script call.
    this.batches =
      typeof (this.connection as { pipeline?: unknown }).pipeline === "function" &&
      !this.connection.isCluster;
    this.restartWatch = new RestartWatch(this.connection, restartQuarantineMs);
  }

  get isSuspect(): boolean {
    return this.overdueCount > 0;
  }

  /** Why a new command must not be sent now, or undefined when it may be. */
  unavailableReason(): Error | undefined {
    if (this.overdueCount > 0) {
      return new NodeUnavailableError(
        `Node ${this.address} has ${this.overdueCount} command(s) overdue; not sending more until it answers.`,
      );
    }
    const status = (this.connection as { status?: string }).status;
    if (status !== undefined && !SENDABLE_STATUSES.has(status)) {
      return new NodeUnavailableError(`Node ${this.address} is not connected (${status}).`);
    }
    return undefined;
  }

  /**
   * EVALSHA, falling back to EVAL once when the node has not cached the script (after a restart).
   * Commands issued in the same event-loop turn go out as one call of the batch script (batch.ts):
   * one socket write and one reply instead of one per command, which is most of the cost under
   * concurrency. Order on the node is preserved.
   */
  evaluate(
    target: Script,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    if (!this.batches) return this.evaluateAlone({ target, keys, args });
    return new Promise((resolve, reject) => {
      this.batch.push({ target, keys, args, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => this.flush());
    });
  }

  private async evaluateAlone({
    target,
    keys,
    args,
  }: Omit<QueuedCommand, "resolve" | "reject">): Promise<unknown> {
    try {
      return await evalScript(this.connection, "evalsha", target.sha, keys, args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return evalScript(this.connection, "eval", target.body, keys, args);
    }
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    // Bounded so one script call never holds a node for long (~1 µs per operation).
    for (let start = 0; start < batch.length; start += MAX_BATCH) {
      const part = batch.slice(start, start + MAX_BATCH);
      if (part.length > 1 && sendBatch(this.connection, part)) continue;
      for (const command of part) this.evaluateAlone(command).then(command.resolve, command.reject);
    }
  }

  /** Called when `pending` outlived its deadline: counts it as overdue until it settles. */
  markOverdue(pending: Promise<unknown>): void {
    this.overdueCount += 1;
    const settle = () => {
      this.overdueCount -= 1;
    };
    pending.then(settle, settle);
  }
}
