/**
 * Helpers for the console server tests: a console on given masters installed as the route handlers'
 * default (no process.env edits), and Request builders for calling route handlers directly.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { expect, vi } from "vitest";
import { configFor, type ConsoleConfig } from "@/lib/server/config";
import { createConsole, type ConsoleContext } from "@/lib/server/console";
import { setDefaultConsole } from "@/lib/server/default-console";
import type { NodeSpec } from "../redlock/fixtures/node-clients";

export const ORIGIN = "http://console.test";
export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

export interface TestConsole {
  readonly ctx: ConsoleContext;
  /** A key prefix unique to this console, also its LOCK_MATCH. */
  readonly prefix: string;
  /**
   * Resolves once every node client has connected. A test that pauses a node must wait for it:
   * paused mid-handshake, the client's connect timeout drops the connection and the commands on it.
   */
  ready(): Promise<void>;
  /**
   * Resolves once the live index holds every change made on the nodes before the call (one PING on
   * each node's subscriber, then the reads it caused): the barrier between a test's writes and its
   * reads of `/api/locks`. Freshness itself is measured by the index tests and the bench.
   */
  sync(): Promise<void>;
  /**
   * Every node connected, the index synced, and history folding (complete, no gap open). Only
   * `sync()` then `completeSince` is not enough: a node that connects after the others is listed
   * later, and history begins again at that listing (coverage.ts, gap()), so a lock taken while
   * completeSince was briefly set lost its acquisition (1 run in 4 under load).
   */
  historyWhole(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The console's REDLOCK_NODES entry for each of the library tests' lock nodes (fixtures/lock-nodes.ts):
 * a master's URL, or a cluster's seed named `?cluster=true`, so that the console reads the very nodes
 * the library holds on.
 */
export const consoleUrlsOf = (specs: readonly NodeSpec[]): string[] =>
  specs.map((spec) =>
    "url" in spec ? spec.url : `redis://127.0.0.1:${spec.seedPorts[0]}?cluster=true`,
  );

export function startTestConsole(
  urls: string[],
  overrides: Partial<ConsoleConfig> = {},
): TestConsole {
  const prefix = `t-${randomBytes(4).toString("hex")}:`;
  const config = configFor(urls, {
    adminToken: ADMIN_TOKEN,
    probeIntervalMs: 0,
    snapshotMaxAgeMs: 0,
    lockMatch: [`${prefix}*`],
    logLevel: "silent",
    ...overrides,
  });
  const ctx = createConsole(config);
  setDefaultConsole(ctx);
  const ready = async () => {
    await Promise.all(
      ctx.registry.nodes.map(({ client }) =>
        client.status === "ready"
          ? undefined
          : new Promise((resolve) => client.once("ready", resolve)),
      ),
    );
  };
  return {
    ctx,
    prefix,
    ready,
    sync: () => ctx.index.sync(),
    historyWhole: async () => {
      await ready();
      await ctx.index.sync();
      await vi.waitFor(() =>
        expect(ctx.timeline.horizon()).toMatchObject({
          completeSince: expect.any(Number),
          gapOpen: false,
        }),
      );
    },
    close: async () => {
      setDefaultConsole(undefined);
      await ctx.close();
    },
  };
}

export interface CallOptions {
  readonly method?: string;
  /** A value to JSON-encode, or a raw string body. */
  readonly body?: unknown;
  /** A raw body: text, or bytes (e.g. not valid UTF-8). */
  readonly rawBody?: string | Uint8Array<ArrayBuffer>;
  readonly headers?: Record<string, string>;
  /** Bearer token; null: none. @default ADMIN_TOKEN */
  readonly token?: string | null;
  /** Origin header; null: none. @default ORIGIN for non-GET */
  readonly origin?: string | null;
  readonly cookie?: string;
}

export function buildRequest(path: string, options: CallOptions = {}): Request {
  const method =
    options.method ??
    (options.body !== undefined || options.rawBody !== undefined ? "POST" : "GET");
  const headers: Record<string, string> = { host: "console.test" };
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const origin = options.origin === undefined ? (method === "GET" ? null : ORIGIN) : options.origin;
  if (origin !== null) headers.origin = origin;
  if (options.cookie) headers.cookie = options.cookie;
  let body: string | Uint8Array<ArrayBuffer> | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  return new Request(`${ORIGIN}${path}`, {
    method,
    headers: { ...headers, ...options.headers },
    body,
  });
}

type Handler = (request: Request) => Promise<Response>;

export async function call<T = unknown>(handler: Handler, path: string, options: CallOptions = {}) {
  const response = await handler(buildRequest(path, options));
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, body: json as T, text };
}

/** Deletes every key whose name contains `marker` on each node (a test's clean-up on shared masters). */
export async function deleteMarked(nodes: readonly Redis[], marker: string): Promise<void> {
  await Promise.all(
    nodes.map(async (node) => {
      const ours = await node.keys(`*${marker}*`);
      if (ours.length) await node.del(...ours);
    }),
  );
}
