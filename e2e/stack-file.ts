/**
 * The contract between e2e/stack.ts (which starts the masters and the console) and the specs
 * (which write keys directly and pause nodes by PID).
 *
 * Playwright runs E2E_STACKS workers, each on a stack of its own (five masters and a console on
 * their own ports, its own stack file): a spec that pauses or restarts a master, or counts the
 * audit, shares nothing with the spec running beside it. A worker's stack is its parallel index
 * (Playwright sets TEST_PARALLEL_INDEX in each worker; e2e/stack.ts gets E2E_STACK_INDEX).
 */
import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * Stacks, and so Playwright workers: two by default, also on this project's 2-core CI machine (a
 * spec spends most of its time waiting on the page and on real TTLs). The specs that need the
 * machine to themselves run after the rest, one at a time (playwright.config.ts, ALONE_SPECS).
 */
export const E2E_STACKS = Math.max(1, Number(process.env.E2E_STACKS ?? 2));

/** Ports between two stacks' consoles: a stack's specs start their own consoles on port + 1, + 2. */
const PORT_STEP = 10;
const BASE_PORT = Number(process.env.E2E_PORT ?? 3217);

/** The stack this process belongs to: 0 in the Playwright runner itself. */
export const STACK_INDEX =
  Number(process.env.E2E_STACK_INDEX ?? process.env.TEST_PARALLEL_INDEX ?? 0) % E2E_STACKS;

export const portOfStack = (index: number) => BASE_PORT + index * PORT_STEP;

/** Port of the console under test; fixed so playwright.config.ts knows it before the stack starts. */
export const E2E_PORT = portOfStack(STACK_INDEX);

export const STACK_FILE = path.resolve(`.data/e2e/stack-${STACK_INDEX}.json`);

/** Where the stack's masters keep their data (one directory per port below it). */
export const MASTERS_DIR = path.resolve(`.data/e2e/masters-${STACK_INDEX}`);

export interface Stack {
  /** redis:// URL of each master, in the console's node order. */
  urls: string[];
  /** PID of each master's redis-server, for SIGSTOP/SIGCONT. */
  pids: number[];
  adminToken: string;
  port: number;
  /** The test OpenID Provider the console signs people in with (test/support/oidc-provider.ts). */
  oidcIssuer: string;
}

export function readStack(): Stack {
  return JSON.parse(readFileSync(STACK_FILE, "utf8")) as Stack;
}
