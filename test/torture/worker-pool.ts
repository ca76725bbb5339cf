/**
 * Forks the torture workers (separate Node processes running worker.ts under tsx), collects what
 * they report, and lets the fault injector pause (SIGSTOP) and slow them.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type {
  ExtendedEvent,
  HeldEvent,
  ParentMessage,
  ReleasingEvent,
  WorkerConfig,
  WorkerMessage,
  WriteEvent,
} from "./events";

const WORKER_PATH = fileURLToPath(new URL("./worker.ts", import.meta.url));
const STOP_GRACE_MS = 15_000;

export class WorkerPool {
  readonly held: HeldEvent[] = [];
  readonly extended: ExtendedEvent[] = [];
  readonly writes: WriteEvent[] = [];
  readonly releases: ReleasingEvent[] = [];
  cycles = 0;
  acquireFailures = 0;
  private readonly paused = new Set<number>();

  private constructor(private readonly children: ChildProcess[]) {
    children.forEach((child) =>
      child.on("message", (message: WorkerMessage) => this.record(message)),
    );
  }

  /** Forks one worker per config and resolves once every one is connected and looping. */
  static async start(configs: WorkerConfig[]): Promise<WorkerPool> {
    const children = configs.map(() =>
      fork(WORKER_PATH, [], {
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
    const pool = new WorkerPool(children);
    await Promise.all(
      children.map((child, index) => {
        const ready = new Promise<void>((resolve, reject) => {
          child.on("message", (message: WorkerMessage) => message.type === "ready" && resolve());
          child.once("exit", (code) =>
            reject(new Error(`Worker ${index} exited with ${code} before it was ready.`)),
          );
        });
        child.send({ type: "start", config: configs[index]! } satisfies ParentMessage);
        return ready;
      }),
    );
    return pool;
  }

  get size(): number {
    return this.children.length;
  }

  isPaused(index: number): boolean {
    return this.paused.has(index);
  }

  pause(index: number): void {
    this.paused.add(index);
    this.children[index]!.kill("SIGSTOP");
  }

  resume(index: number): void {
    this.paused.delete(index);
    this.children[index]!.kill("SIGCONT");
  }

  overrun(index: number, byMs: number): void {
    this.children[index]!.send({ type: "overrun", byMs } satisfies ParentMessage);
  }

  /** Resumes paused workers, asks every worker to finish its cycle, and waits for all to exit. */
  async stop(): Promise<void> {
    [...this.paused].forEach((index) => this.resume(index));
    await Promise.all(this.children.map((child) => stopChild(child)));
  }

  private record(message: WorkerMessage): void {
    if (message.type === "held") this.held.push(message);
    else if (message.type === "extended") this.extended.push(message);
    else if (message.type === "write") this.writes.push(message);
    else if (message.type === "releasing") this.releases.push(message);
    else if (message.type === "cycle") this.cycles += 1;
    else if (message.type === "acquire-failed") this.acquireFailures += 1;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.send({ type: "stop" } satisfies ParentMessage);
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
