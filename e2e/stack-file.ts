/**
 * The contract between e2e/stack.ts (which starts the masters and the console) and the specs
 * (which write keys directly and pause nodes by PID).
 */
import { readFileSync } from "node:fs";
import path from "node:path";

/** Port of the console under test; fixed so playwright.config.ts knows it before the stack starts. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3217);

export const STACK_FILE = path.resolve(".data/e2e/stack.json");

export interface Stack {
  /** redis:// URL of each master, in the console's node order. */
  urls: string[];
  /** PID of each master's redis-server, for SIGSTOP/SIGCONT. */
  pids: number[];
  adminToken: string;
  port: number;
}

export function readStack(): Stack {
  return JSON.parse(readFileSync(STACK_FILE, "utf8")) as Stack;
}
