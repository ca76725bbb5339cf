import { createRequire } from "node:module";
import type { Cluster, Command as IoredisCommand, Redis } from "ioredis";
import type { CommandArg, CommandKey, ConnectionStatus, RedisDriver, Subscriber } from "./driver";

let Command: typeof IoredisCommand | undefined;

/**
 * ioredis's Command class, required on first use: only an ioredis client needs it, and a
 * node-redis application need not have ioredis installed at all.
 */
function commandClass(): typeof IoredisCommand {
  if (!Command) {
    const ioredis: { Command: typeof IoredisCommand } = createRequire(import.meta.url)("ioredis");
    Command = ioredis.Command;
  }
  return Command;
}

/** ioredis's connection states as the library acts on them (both Redis and Cluster). */
export function statusOf(status: Redis["status"] | Cluster["status"]): ConnectionStatus {
  switch (status) {
    case "ready":
      return "ready";
    // "wait": lazyConnect, the first command opens the connection.
    case "wait":
    case "connecting":
    case "connect":
      return "connecting";
    case "end":
      return "end";
    case "disconnecting":
      return "closing";
    default:
      return "reconnecting";
  }
}

/** A duplicate of an ioredis Redis or Cluster, used for pub/sub only. */
export class IoredisSubscriber implements Subscriber {
  constructor(private readonly connection: Redis | Cluster) {
    // Errors surface as reconnects, after which ioredis subscribes again on its own.
    connection.on("error", () => undefined);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    this.connection.on("message", (received: string, message: string) => {
      if (received === channel) onMessage(message);
    });
    await this.connection.subscribe(channel);
  }

  close(): void {
    this.connection.disconnect();
  }
}

/** `host:port` or the socket path of an ioredis client. */
function describe({ options }: Redis): string {
  if (options.path) return options.path;
  return `${options.host ?? "localhost"}:${options.port ?? 6379}`;
}

/**
 * A single ioredis client. Each command goes as one ioredis Command straight to the connection
 * (what `client.evalsha` does, minus its argument juggling): with auto-pipelining on, ioredis would
 * otherwise defer each command again by an event-loop turn and build a Pipeline per turn, where
 * node.ts batches already.
 */
export class IoredisDriver implements RedisDriver {
  readonly address: string;
  readonly kind = "ioredis";
  readonly batches = true;

  constructor(private readonly client: Redis) {
    this.address = describe(client);
  }

  get status(): ConnectionStatus {
    return statusOf(this.client.status);
  }

  evalsha(sha: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown> {
    return this.send("evalsha", [sha, keys.length, ...keys, ...args]);
  }

  eval(body: string, keys: readonly CommandKey[], args: readonly CommandArg[]): Promise<unknown> {
    return this.send("eval", [body, keys.length, ...keys, ...args]);
  }

  command(name: string, args: CommandArg[]): Promise<unknown> {
    return this.send(name, args);
  }

  info(section: string): Promise<string> {
    return this.client.info(section);
  }

  on(event: "ready" | "close", listener: () => void): void {
    this.client.on(event, listener);
  }

  async subscriber(): Promise<Subscriber> {
    return new IoredisSubscriber(this.client.duplicate());
  }

  clientId(): Promise<number> {
    return this.client.client("ID");
  }

  private send(name: string, args: CommandArg[]): Promise<unknown> {
    const command = new (commandClass())(name, args, {
      replyEncoding: "utf8",
      keyPrefix: this.client.options.keyPrefix,
    });
    this.client.sendCommand(command);
    return command.promise;
  }
}
