/**
 * The clients the library under test drives: the same ioredis clients the test uses for its own
 * reads in the "ioredis" project, or node-redis clients to the same masters in the "node-redis"
 * project (vitest.config.ts), so every algorithm test runs against both kinds of client.
 */
import type { Client } from "@redlock-console/redlock";
import type { Redis } from "ioredis";
import { createClient } from "redis";
import { afterAll, inject } from "vitest";

export type ClientKind = "ioredis" | "node-redis";

export const clientKind = (): ClientKind => inject("clientKind") ?? "ioredis";

const opened: ReturnType<typeof createClient>[] = [];

/** One library client per ioredis client, to the same master, of this project's kind. */
export async function lockClients(clients: Redis[]): Promise<Client[]> {
  if (clientKind() === "ioredis") return clients;
  return Promise.all(
    clients.map(async ({ options }) => {
      const client = createClient({ socket: { host: options.host, port: options.port } });
      // Faults are injected on purpose: a lost connection is the library's to report, not a crash.
      client.on("error", () => undefined);
      opened.push(client);
      await client.connect();
      return client;
    }),
  );
}

// destroy(), not quit(): a test's private masters may already be stopped, and quit() would wait
// for a reconnection that never comes.
afterAll(() => {
  for (const client of opened.splice(0)) client.destroy();
});

declare module "vitest" {
  export interface ProvidedContext {
    clientKind?: ClientKind;
  }
}
