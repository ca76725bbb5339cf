import "server-only";
/**
 * One ioredis client per configured node, for the life of the console. Every command is bounded by
 * the node timeout (commandTimeout), so a hung node costs a request at most that long.
 * Addresses shown or logged never carry the URL's password.
 */
import { Redis } from "ioredis";
import { quorumSize } from "@redlock-console/redlock";
import type { ConsoleConfig } from "./config";
import { logger, redactText, redactUrl } from "./logger";

export interface ConsoleNode {
  /** "node-1" … "node-N", in REDLOCK_NODES order. */
  readonly id: string;
  readonly index: number;
  /** host:port, no credentials. */
  readonly address: string;
  readonly tls: boolean;
  readonly client: Redis;
}

export interface NodeRegistry {
  readonly nodes: readonly ConsoleNode[];
  /** Votes a lock needs: floor(N/2)+1. */
  readonly quorumSize: number;
  close(): Promise<void>;
}

/** Reconnect quickly at first, then every 2 s: a node that comes back is used again within seconds. */
const retryStrategy = (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2_000);

function createClient(url: string, address: string, config: ConsoleConfig): Redis {
  const client = new Redis(url, {
    connectTimeout: Math.max(config.nodeTimeoutMs, 1_000),
    commandTimeout: config.nodeTimeoutMs,
    // Fail fast while disconnected instead of retrying behind the caller's back; commandTimeout bounds the rest.
    maxRetriesPerRequest: 0,
    retryStrategy,
    enableAutoPipelining: false,
    lazyConnect: false,
    connectionName: "redlock-console",
  });
  let lastError = "";
  client.on("error", (error: Error) => {
    const message = redactText(error.message);
    // A down node reports the same error on every reconnect; log it once per change.
    if (message !== lastError) logger.warn({ node: address, error: message }, "redis node error");
    lastError = message;
  });
  client.on("ready", () => {
    if (lastError) logger.info({ node: address }, "redis node reconnected");
    lastError = "";
  });
  return client;
}

export function createNodeRegistry(config: ConsoleConfig): NodeRegistry {
  const nodes = config.nodeUrls.map((url, index): ConsoleNode => {
    const address = redactUrl(url);
    return {
      id: `node-${index + 1}`,
      index,
      address,
      tls: url.startsWith("rediss:"),
      client: createClient(url, address, config),
    };
  });
  return {
    nodes,
    quorumSize: quorumSize(nodes.length),
    close: async () => {
      await Promise.all(
        nodes.map((node) => node.client.quit().catch(() => node.client.disconnect())),
      );
    },
  };
}

/** Runs `task` with a hard deadline: a node that never answers yields `undefined` on time. */
export async function withDeadline<T>(task: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    return await Promise.race([task, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
