import { NodeUnavailableError } from "./errors";
import { sendBatch, type BatchScript, type QueuedCommand } from "./batch";
import { RestartWatch } from "./restart-watch";
import { driverFor, type Client, type RedisDriver } from "./driver";
import { evaluate, type Script, type ScriptArg } from "./script";

/** Most operations one batch script call carries. */
const MAX_BATCH = 256;
/**
 * Calls a node may have unanswered before more commands wait in our queue for one to be answered:
 * one executing and one on the wire keep a healthy node busy, and a paused node holds at most this
 * many calls (whatever the number of operations) until it is seen overdue.
 */
const MAX_CALLS_IN_FLIGHT = 2;

/**
 * Per client (shared by every Redlock on it), the scripts sent on its current connection: each goes
 * once as EVAL before any EVALSHA of it, so a NOSCRIPT retry can never reorder the connection's
 * commands (script.ts). One "close" listener per client clears it: a new connection may reach a
 * restarted (or another) process, with an empty script cache.
 */
const sentScriptsByDriver = new WeakMap<RedisDriver, Set<string>>();

function sentScriptsOf(driver: RedisDriver): Set<string> {
  let sent = sentScriptsByDriver.get(driver);
  if (!sent) {
    const created = new Set<string>();
    driver.on("close", () => created.clear());
    sentScriptsByDriver.set(driver, (sent = created));
  }
  return sent;
}

/**
 * One Redis master as the algorithm sees it. It refuses to send while it has commands overdue past
 * `nodeTimeout`: a paused node otherwise collects one queued command per operation, without bound.
 */
export class RedlockNode {
  readonly address: string;
  readonly restartWatch: RestartWatch;
  /** A Redis Cluster client: each key goes to the shard that owns its slot. */
  readonly isCluster: boolean;
  /** The client as the library drives it. */
  readonly driver: RedisDriver;
  private overdueCount = 0;
  /** Script calls sent to this node and not answered yet (batching clients only). */
  private inFlight = 0;
  /**
   * The first key of the last command sent on its own, until a batch goes out: a command on the
   * same key may follow it at once (see evaluate).
   */
  private loneKey: string | undefined;
  /** Commands that arrived while a call was in flight: they go out together at the end of the turn. */
  private queue: QueuedCommand[] = [];
  private flushScheduled = false;
  /** Set when this node batches (RedisDriver.batches). */
  private readonly batchScript: BatchScript | undefined;
  /** See sentScriptsOf; undefined for a Cluster (a cache per shard): it relies on the fallback alone. */
  private readonly sentScripts: Set<string> | undefined;
  private readonly settle = () => this.onCallSettled();
  private readonly flushQueue = () => this.flush();
  /** Who waits for this node to have answered every call it was given (drained). */
  private drainWaiters: (() => void)[] = [];

  constructor(
    /** The client as the caller gave it: the key of `votesFor`/`votesAgainst`. */
    readonly client: Client,
    readonly index: number,
    restartQuarantineMs: number | false,
    batchScript?: BatchScript,
  ) {
    this.driver = driverFor(client);
    this.address = this.driver.address;
    this.isCluster = this.driver.cluster !== undefined;
    this.batchScript = this.driver.batches ? batchScript : undefined;
    if (!this.isCluster) this.sentScripts = sentScriptsOf(this.driver);
    this.restartWatch = new RestartWatch(this.driver, restartQuarantineMs);
  }

  get isSuspect(): boolean {
    return this.overdueCount > 0;
  }

  /** Why a new command must not be sent now, or undefined when it may be. */
  unavailableReason(): Error | undefined {
    if (this.overdueCount > 0) {
      return new NodeUnavailableError(
        this.address,
        `Node ${this.address} has ${this.overdueCount} command(s) overdue; not sending more until it answers.`,
      );
    }
    // A client that gave up ("end") refuses at once, with its own error ("Connection is closed."
    // for ioredis), which is the vote node-redlock reports: let it answer. A client that is
    // reconnecting would queue the command instead, so it is not sent (no unbounded queues).
    const status = this.driver.status;
    if (status === "reconnecting" || status === "closing") {
      return new NodeUnavailableError(
        this.address,
        `Node ${this.address} is not connected (${status}).`,
      );
    }
    return undefined;
  }

  /** Whether `script` was sent on this connection before (and so is cached), marking it sent. */
  private isCached(script: Script): boolean {
    if (!this.sentScripts || this.sentScripts.has(script.sha)) return true;
    this.sentScripts.add(script.sha);
    return false;
  }

  /**
   * Runs `script` on the node (EVAL the first time on a connection, EVALSHA after: script.ts).
   * Adaptive batching: a command to an idle node goes out at once, on its own, so a single caller
   * pays no extra event-loop turn; so does one on the same key as the last command sent on its own
   * while fewer than MAX_CALLS_IN_FLIGHT calls are out and no batch went out since (a caller's
   * release behind its own acquire on the nodes that have not answered it yet: both go out
   * pipelined and both replies come back in one socket read, rather than one more read and one
   * setImmediate per pair spent waiting for the acquire's reply). Commands that arrive while other
   * calls to the node are in flight are collected until the end of the event-loop turn (or, with
   * MAX_CALLS_IN_FLIGHT unanswered, until one is answered) and go out as one call of the batch
   * script (batch.ts): one socket write and one reply instead of one per command, which is most of
   * the cost under concurrency. The busier the node, the bigger the batches. Only those two kinds
   * of command go out alone: were any command sent at once while fewer than MAX_CALLS_IN_FLIGHT
   * calls are out, or a lone command allowed to follow a lone one on any key, every answer would
   * let one command out alone, and under many callers the batches would shrink to a fraction of
   * their size. Order on the node is preserved: a command goes out at once only when nothing is
   * queued.
   */
  evaluate(script: Script, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    if (!this.batchScript) return evaluate(this.driver, script, keys, args, this.isCached(script));
    if (
      this.queue.length === 0 &&
      (this.inFlight === 0 || (this.inFlight < MAX_CALLS_IN_FLIGHT && keys[0] === this.loneKey))
    ) {
      this.inFlight += 1;
      this.loneKey = keys[0];
      return evaluate(this.driver, script, keys, args, this.isCached(script), this.settle);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ script, keys, args, resolve, reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.inFlight >= MAX_CALLS_IN_FLIGHT) return;
    this.flushScheduled = true;
    setImmediate(this.flushQueue);
  }

  private onCallSettled(): void {
    this.inFlight -= 1;
    if (this.queue.length > 0) this.scheduleFlush();
    else if (this.inFlight === 0) for (const drained of this.drainWaiters.splice(0)) drained();
  }

  /**
   * Resolves once every call given to this node has been answered, sending what waits for the end
   * of the turn now (Redlock.quit). A release resolves once a majority answered, and its commands
   * to the other nodes may still be queued here: a QUIT written before them would close the
   * connection under them, and the lock would stay on those nodes until its TTL.
   */
  drained(): Promise<void> {
    if (this.queue.length > 0) this.flush();
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private flush(): void {
    this.flushScheduled = false;
    const queue = this.queue;
    this.queue = [];
    // Bounded so one script call never holds a node for long: Redis runs nothing else meanwhile.
    for (let start = 0; start < queue.length; start += MAX_BATCH) {
      const part = queue.length <= MAX_BATCH ? queue : queue.slice(start, start + MAX_BATCH);
      const batchScript = this.batchScript!;
      if (part.length > 1 && part.every(({ script }) => batchScript.carries.has(script.sha))) {
        this.inFlight += 1;
        this.loneKey = undefined;
        sendBatch(this.driver, batchScript, part, this.isCached(batchScript), this.settle);
        continue;
      }
      for (const command of part) {
        this.inFlight += 1;
        const { script, keys, args } = command;
        this.loneKey = keys[0];
        evaluate(this.driver, script, keys, args, this.isCached(script), this.settle).then(
          command.resolve,
          command.reject,
        );
      }
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
