/** Starts stoppable-holder.ts (under tsx) and waits until it holds its lock. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export interface HolderProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly value: string;
  /** SIGSTOP: it keeps its connections but neither extends nor heartbeats. */
  pause(): void;
  /** SIGKILL (after SIGCONT is not needed: a stopped process dies on SIGKILL). */
  kill(): void;
}

export async function startHolder(args: {
  urls: string[];
  resource: string;
  ttlMs: number;
  service: string;
}): Promise<HolderProcess> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(import.meta.dirname, "stoppable-holder.ts"),
      JSON.stringify(args),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const held = await new Promise<{ held: string; pid: number }>((resolve, reject) => {
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const line = buffered.split("\n").find((text) => text.startsWith("{"));
      if (line) resolve(JSON.parse(line) as { held: string; pid: number });
    });
    child.once("exit", (code) => reject(new Error(`holder exited with ${code} before holding`)));
  });
  return {
    child,
    pid: held.pid,
    value: held.held,
    pause: () => child.kill("SIGSTOP"),
    kill: () => {
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
