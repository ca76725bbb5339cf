/**
 * A node for the watch's unit tests, in memory: a command connection answering the commands the
 * watch sends from a map of keys, and a subscriber that publishes keyspace notifications for the
 * changes a test makes. Both are scripted: a test drops them, hangs their PINGs, restarts the node.
 */
import { EventEmitter } from "node:events";
import type { NodeKeyState } from "@/lib/server/locks/read/key-state";
import { compileGlob } from "@/lib/server/locks/read/glob";
import type {
  CommandConnection,
  NodeConnections,
  SubscriberConnection,
} from "@/lib/server/locks/watch/io/connections";

/** A PING that is never answered. */
const never = () => new Promise<never>(() => {});

const matchers = new Map<string, (text: string) => boolean>();
const matcherOf = (pattern: string) => {
  let matches = matchers.get(pattern);
  if (!matches) matchers.set(pattern, (matches = compileGlob(pattern)));
  return matches;
};

export class FakeCommands extends EventEmitter implements CommandConnection {
  status = "ready";
  /** INFO's run_id (real ones are 40 hex digits; any word does). */
  runId = "run1";
  notifyFlags = "KEA";
  configFails = false;
  readonly keys = new Map<string, { value: string; pttlMs: number }>();
  readonly sent: string[] = [];
  /** Which values the read script recognises as locks (all, unless a test says otherwise). */
  isLock: (value: string) => boolean = () => true;
  /** Read replies held back (null: answered at once); answerReads() lets them go. */
  replies: Array<() => void> | null = null;

  answerReads(): void {
    const waiting = this.replies ?? [];
    this.replies = null;
    for (const answer of waiting) answer();
  }

  /** Names each read script call read, in order. */
  readonly read: string[][] = [];

  async info(section = "server"): Promise<string> {
    if (section === "commandstats") {
      this.sent.push("INFO commandstats");
      return "# Commandstats\r\ncmdstat_scan:calls=1,usec=10,usec_per_call=10.00\r\n";
    }
    this.sent.push("INFO");
    return `# Server\r\nredis_version:7.4.0\r\nrun_id:${this.runId}\r\n`;
  }

  async dbsize(): Promise<number> {
    return this.keys.size;
  }

  /** SCAN over the sorted key names, `count` names per call (the cursor is an index). */
  async scanBuffer(
    cursor: string,
    _match: "MATCH",
    pattern: string,
    _count: "COUNT",
    count: number,
  ): Promise<[Buffer, Buffer[]]> {
    this.sent.push(`SCAN ${cursor}`);
    const names = [...this.keys.keys()].sort();
    const start = Number(cursor);
    const batch = names.slice(start, start + count).filter(matcherOf(pattern));
    const next = start + count >= names.length ? "0" : String(start + count);
    return [Buffer.from(next), batch.map((name) => Buffer.from(name, "latin1"))];
  }

  async config(subcommand: "GET" | "SET", parameter: string, value?: string): Promise<unknown> {
    if (this.configFails) throw new Error("ERR unknown command 'CONFIG'");
    if (subcommand === "GET") return [parameter, this.notifyFlags];
    this.notifyFlags = value ?? "";
    return "OK";
  }

  /** PINGs waiting for the node to resume; null: it runs. */
  #paused: Array<() => void> | null = null;

  ping(): Promise<unknown> {
    const paused = this.#paused;
    if (!paused) return Promise.resolve("PONG");
    return new Promise((resolve) => paused.push(() => resolve("PONG")));
  }

  /** SIGSTOP: the connection stays open, nothing is answered until resume(). */
  pause(): void {
    this.#paused = [];
  }

  resume(): void {
    const waiting = this.#paused ?? [];
    this.#paused = null;
    for (const answer of waiting) answer();
  }

  /** One read script call: what each key holds. */
  async readKeys(keys: readonly Buffer[]): Promise<Array<NodeKeyState | null>> {
    this.sent.push(`READ ${keys.length}`);
    this.read.push(keys.map((key) => key.toString("latin1")));
    const states = keys.map((key): NodeKeyState | null => {
      const held = this.keys.get(key.toString("latin1"));
      return held && this.isLock(held.value)
        ? { ...held, format: "string", holdCount: null }
        : null;
    });
    // Read now, answered later: the reply still travels while other changes are published.
    if (this.replies) await new Promise<void>((resolve) => this.replies!.push(resolve));
    return states;
  }

  drop(): void {
    this.status = "reconnecting";
    this.emit("close");
  }

  reconnect(): void {
    this.status = "ready";
    this.emit("ready");
  }
}

export class FakeSubscriber extends EventEmitter implements SubscriberConnection {
  status = "wait";
  pingAnswers = true;
  patterns: string[] = [];

  async connect(): Promise<void> {
    this.status = "ready";
    queueMicrotask(() => this.emit("ready"));
  }

  async psubscribe(...patterns: string[]): Promise<unknown> {
    this.patterns.push(...patterns);
    return patterns.length;
  }

  async punsubscribe(): Promise<unknown> {
    this.patterns = [];
    return 0;
  }

  ping(): Promise<unknown> {
    return this.pingAnswers ? Promise.resolve("PONG") : never();
  }

  disconnect(): void {
    this.drop();
  }

  /** The connection dropped: its subscriptions are gone (ioredis reconnects without them here). */
  drop(): void {
    this.status = "reconnecting";
    this.patterns = [];
    this.emit("close");
  }

  reconnect(): void {
    this.status = "ready";
    this.emit("ready");
  }

  /** Publishes `event` on `key`'s keyspace channel of db 0, if subscribed to it. */
  publish(key: string, event: string): void {
    const channel = `__keyspace@0__:${key}`;
    const pattern = this.patterns.find((candidate) => matcherOf(candidate)(channel));
    if (pattern === undefined) return;
    this.emit(
      "pmessageBuffer",
      Buffer.from(pattern),
      Buffer.from(channel, "latin1"),
      Buffer.from(event),
    );
  }
}

/** A node: its two connections, and writes that notify as Redis does. */
export class FakeNode {
  readonly commands = new FakeCommands();
  readonly subscriber = new FakeSubscriber();
  readonly connections: NodeConnections = {
    commands: this.commands,
    subscriber: this.subscriber,
    db: 0,
    readKeys: async (keys) => {
      // Taken in the same tick as the states: a key that holds a value that is no lock is present.
      const present = keys.map((key) => this.commands.keys.has(key.toString("latin1")));
      return { states: await this.commands.readKeys(keys), present, touchedBytes: 0 };
    },
  };

  set(name: string, value: string, pttlMs = 30_000): void {
    this.commands.keys.set(name, { value, pttlMs });
    this.subscriber.publish(name, "set");
  }

  del(name: string): void {
    this.commands.keys.delete(name);
    this.subscriber.publish(name, "del");
  }

  /** A key gone by its TTL, as Redis tells it. */
  expire(name: string): void {
    this.commands.keys.delete(name);
    this.subscriber.publish(name, "expired");
  }

  /** Restarted empty: a new run_id, nothing held, every connection dropped and back. */
  restart(): void {
    this.commands.keys.clear();
    this.commands.runId = `run${Number(this.commands.runId.slice(3)) + 1}`;
    this.commands.drop();
    this.subscriber.drop();
    this.commands.reconnect();
    this.subscriber.reconnect();
  }
}
