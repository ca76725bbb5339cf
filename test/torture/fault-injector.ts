/**
 * Injects faults into a running torture test: pauses masters (SIGSTOP/SIGCONT), kills them and
 * restarts them empty (SIGKILL, wiped data, new process), pauses workers past their TTL (SIGSTOP),
 * makes workers overrun their TTL inside the critical section, and replays the seed's unsafe
 * restart: it pauses two masters (locks taken meanwhile live on the other three only), resumes
 * them and at once restarts one of the three empty. It keeps at most
 * `maxNodesDown` masters paused or freshly restarted at once, so a majority stays reachable and
 * the workload keeps cycling; every other choice is random from the seed.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Masters } from "@/scripts/redis-masters";
import { between, pickOne, shuffled } from "./random";
import type { WorkerPool } from "./worker-pool";

export const FAULT_KINDS = [
  "node-pause",
  "node-restart-empty",
  "split-then-restart",
  "worker-pause",
  "worker-overrun",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
/** The seed's unsafe restart is drawn twice as often: it is the fault quarantine exists for. */
const DRAWS: readonly FaultKind[] = [...FAULT_KINDS, "split-then-restart"];

export interface InjectorOptions {
  readonly masters: Masters;
  readonly workers: WorkerPool;
  readonly random: () => number;
  readonly ttlMs: number;
  /** How long a restarted master counts as down: its quarantine plus reconnection slack. */
  readonly restartDownMs: number;
  readonly maxNodesDown: number;
  readonly intervalMs: readonly [min: number, max: number];
}

export class FaultInjector {
  readonly counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<
    FaultKind,
    number
  >;
  private readonly nodeDownUntil: number[];
  private readonly pending = new Set<Promise<unknown>>();
  /** What was injected when, to explain a violation. */
  readonly log: { readonly at: number; readonly fault: string }[] = [];
  private stopping = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: InjectorOptions) {
    this.nodeDownUntil = options.masters.masters.map(() => 0);
  }

  get total(): number {
    return Object.values(this.counts).reduce((sum, count) => sum + count, 0);
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopping) {
        await sleep(between(this.options.random, ...this.options.intervalMs));
        if (!this.stopping) await this.injectOne();
      }
    })();
  }

  /** Stops injecting, waits for faults in progress to end, and resumes everything paused. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
    await Promise.all(this.pending);
  }

  /** Draws among the faults possible now, so a turn is never lost to too many masters being down. */
  private async injectOne(): Promise<void> {
    const upNodes = this.nodeDownUntil.flatMap((until, index) =>
      until <= Date.now() ? [index] : [],
    );
    const nodesDown = this.nodeDownUntil.length - upNodes.length;
    const workerUp = [...Array(this.options.workers.size).keys()].some(
      (index) => !this.options.workers.isPaused(index),
    );
    const possible = DRAWS.filter((kind) => {
      if (kind === "split-then-restart") return nodesDown === 0;
      if (kind === "node-pause" || kind === "node-restart-empty")
        return nodesDown < this.options.maxNodesDown;
      return workerUp;
    });
    if (possible.length === 0) return;
    // The seed's unsafe restart comes first, so every run has at least one.
    const firstSplit =
      this.counts["split-then-restart"] === 0 && possible.includes("split-then-restart");
    const kind = firstSplit ? "split-then-restart" : pickOne(this.options.random, possible);
    if (kind === "split-then-restart") return this.splitThenRestart();
    if (kind === "node-pause" || kind === "node-restart-empty")
      return this.injectNodeFault(kind, pickOne(this.options.random, upNodes));
    return this.injectWorkerFault(kind);
  }

  private note(kind: FaultKind, fault: string): void {
    this.counts[kind] += 1;
    this.log.push({ at: Date.now(), fault: `${kind}: ${fault}` });
  }

  private async injectNodeFault(kind: FaultKind, node: number): Promise<void> {
    const { masters, random, restartDownMs } = this.options;
    if (kind === "node-restart-empty") {
      this.note(kind, `node ${node}`);
      this.nodeDownUntil[node] = Number.POSITIVE_INFINITY;
      await masters.restartEmpty(node);
      this.nodeDownUntil[node] = Date.now() + restartDownMs;
      return;
    }
    const pauseMs = between(random, 100, 1_500);
    this.note(kind, `node ${node} for ${pauseMs} ms`);
    this.nodeDownUntil[node] = Date.now() + pauseMs;
    masters.pause(node);
    this.track(sleep(pauseMs).then(() => masters.resume(node)));
  }

  /** Pauses two masters, then resumes them and restarts one of the three that kept voting. */
  private splitThenRestart(): void {
    const { masters, random, restartDownMs } = this.options;
    const [first, second, restarted] = shuffled(random, [...this.nodeDownUntil.keys()]);
    const pauseMs = between(random, 300, 800);
    this.note(
      "split-then-restart",
      `nodes ${first} and ${second} for ${pauseMs} ms, then node ${restarted}`,
    );
    for (const node of [first!, second!]) {
      this.nodeDownUntil[node] = Date.now() + pauseMs;
      masters.pause(node);
    }
    this.nodeDownUntil[restarted!] = Number.POSITIVE_INFINITY; // no other fault may pick it meanwhile
    this.track(
      sleep(pauseMs).then(async () => {
        masters.resume(first!);
        masters.resume(second!);
        await masters.restartEmpty(restarted!);
        this.nodeDownUntil[restarted!] = Date.now() + restartDownMs;
      }),
    );
  }

  private injectWorkerFault(kind: FaultKind): void {
    const { workers, random, ttlMs } = this.options;
    const worker = pickOne(
      random,
      [...Array(workers.size).keys()].filter((index) => !workers.isPaused(index)),
    );
    const extraMs = between(random, 50, kind === "worker-overrun" ? 400 : 600);
    this.note(kind, `worker ${worker} past its TTL by ${extraMs} ms`);
    if (kind === "worker-overrun") return workers.overrun(worker, extraMs);
    workers.pause(worker);
    this.track(sleep(ttlMs + extraMs).then(() => workers.resume(worker)));
  }

  private track(task: Promise<unknown>): void {
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }
}
