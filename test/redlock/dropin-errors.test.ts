/**
 * Drop-in means the same errors: node-redlock and this library, put in the same situation on the
 * same real masters with ioredis clients, throw, vote and emit errors of the same class name and
 * message. Each row of the table is one situation; differences we keep on purpose are asserted as
 * such, and listed in lib/redlock/README.md ("Migrating from node-redlock").
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { createClient } from "redis";
import NodeRedlock from "redlock";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import Redlock, { ExecutionError, ResourceLockedError } from "@redlock-console/redlock";
import { freePort } from "@/scripts/redis-masters";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";

/** What a caller can observe of an operation: what it threw, and the errors in its votes and events. */
interface Outcome {
  thrown: string | null;
  votesAgainst: string[];
  emitted: string[];
}

/** Either library, as node-redlock's API describes it (ours is a superset). */
interface Locker {
  acquire(resources: string[], duration: number, settings?: object): Promise<Held>;
  on(event: "error", listener: (error: Error) => void): unknown;
  using(
    resources: string[],
    duration: number,
    settings: object,
    routine: (signal: AbortSignal & { error?: Error }) => Promise<void>,
  ): Promise<void>;
}
interface Held {
  value: string;
  attempts: ReadonlyArray<Promise<{ votesAgainst: Map<unknown, Error> }>>;
  extend(duration: number): Promise<Held>;
  release(): Promise<{ attempts: Held["attempts"] }>;
}

/**
 * Class name, constructor and message. A script error names the script's sha and line, which differ
 * between the libraries (they run different scripts): those two are masked, the rest must match.
 */
const describeError = (error: unknown): string =>
  error instanceof Error
    ? `${error.name} (${error.constructor.name}): ${error.message
        .replace(
          /script: [0-9a-f]{40}, on @user_script:\d+\./,
          "script: <sha>, on @user_script:<line>.",
        )
        .replace(/127\.0\.0\.1:\d+/, "<address>")}`
    : `not an Error: ${String(error)}`;

async function votesOf(attempts: Held["attempts"] | undefined): Promise<string[]> {
  const stats = await Promise.all(attempts ?? []);
  return stats.flatMap((stat) => [...stat.votesAgainst.values()].map(describeError)).sort();
}

/** Runs `operation` on a locker and records what it threw, its votes against and "error" events. */
async function observe(
  locker: Locker,
  operation: (locker: Locker) => Promise<{ attempts: Held["attempts"] } | undefined>,
): Promise<Outcome> {
  const emitted: string[] = [];
  locker.on("error", (error) => emitted.push(describeError(error)));
  let thrown: string | null = null;
  let attempts: Held["attempts"] | undefined;
  try {
    attempts = (await operation(locker))?.attempts;
  } catch (error) {
    thrown = describeError(error);
    if (error instanceof Error && "attempts" in error)
      attempts = error.attempts as Held["attempts"];
  }
  const votesAgainst = await votesOf(attempts);
  // Votes that arrive after the operation decided (a release's last nodes) are emitted then.
  await sleep(100);
  return { thrown, votesAgainst, emitted: emitted.sort() };
}

const { masters } = usePrivateMasters(5);
let clients: Redis[];

beforeAll(() => {
  clients = connect(masters().urls);
});
afterAll(() => disconnect(clients));

type Build = (clients: Redis[], settings: object) => Locker;
const LIBRARIES: ReadonlyArray<[string, Build]> = [
  ["node-redlock", (list, settings) => new NodeRedlock(list, settings) as unknown as Locker],
  ["ours", (list, settings) => new Redlock(list, settings) as unknown as Locker],
];

/** One situation, run on each library with its own fresh clients, resource and settings. */
interface Situation {
  readonly name: string;
  readonly settings?: object;
  /** Clients for the run (default: the five masters' clients). */
  readonly clients?: () => Promise<Redis[]>;
  readonly run: (
    locker: Locker,
    resource: string,
  ) => Promise<{ attempts: Held["attempts"] } | undefined>;
  /** What node-redlock shows, and ours too unless `deliberate` says otherwise. */
  readonly expected: Outcome;
  /** Compare only distinct errors (how many times each repeats is no behaviour callers rely on). */
  readonly distinct?: boolean;
  /** A difference kept on purpose (listed in the package README): why, and what ours shows. */
  readonly deliberate?: { readonly why: string; readonly ours: Outcome };
}

const QUORUM_FAILED =
  "ExecutionError (ExecutionError): The operation was unable to achieve a quorum during its retry window.";
const LOCKED_0_OF_1 =
  "ResourceLockedError (ResourceLockedError): The operation was applied to: 0 of the 1 requested resources.";
const CLOSED = "Error (Error): Connection is closed.";

let ownFirstClient: Redis | undefined;

/** The five clients, the first a connected one of the run's own, that never reconnects. */
async function withOwnFirstClient(): Promise<Redis[]> {
  ownFirstClient = new Redis(masters().urls[0]!, { retryStrategy: () => null });
  ownFirstClient.on("error", () => {});
  await new Promise((resolve) => ownFirstClient!.once("ready", resolve));
  return [ownFirstClient, ...clients.slice(1)];
}

const LOCKED_ON_5 = Array<string>(5).fill(LOCKED_0_OF_1);
const WRONGTYPE =
  "ReplyError (ReplyError): WRONGTYPE Operation against a key holding the wrong kind of value script: <sha>, on @user_script:<line>.";

/** The five clients, the first replaced by one that was disconnected (status "end"). */
async function withClosedClient(): Promise<Redis[]> {
  const closed = new Redis(masters().urls[0]!, { lazyConnect: true });
  closed.disconnect();
  return [closed, ...clients.slice(1)];
}

/** The five clients, the first pointing at a port where nothing listens, given up at once. */
async function withUnreachableClient(): Promise<Redis[]> {
  const port = await freePort();
  const unreachable = new Redis({
    port,
    host: "127.0.0.1",
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  unreachable.on("error", () => {});
  await new Promise((resolve) => unreachable.once("end", resolve));
  return [unreachable, ...clients.slice(1)];
}

const SITUATIONS: Situation[] = [
  {
    name: "a node whose client was closed votes against with the client's own error",
    settings: { retryCount: 0 },
    clients: withClosedClient,
    run: async (locker, resource) => {
      const lock = await locker.acquire([resource], 5_000);
      await lock.release();
      return lock;
    },
    expected: { thrown: null, votesAgainst: [CLOSED], emitted: [CLOSED, CLOSED] },
  },
  {
    name: "an unreachable node (connection refused, client gave up) votes against the same way",
    settings: { retryCount: 0 },
    clients: withUnreachableClient,
    run: async (locker, resource) => locker.acquire([resource], 5_000),
    expected: { thrown: null, votesAgainst: [CLOSED], emitted: [CLOSED] },
  },
  {
    name: "a held resource: ResourceLockedError votes, then ExecutionError",
    settings: { retryCount: 1, retryDelay: 10, retryJitter: 0 },
    run: async (locker, resource) => {
      await Promise.all(clients.map((client) => client.set(resource, "someone-else", "PX", 5_000)));
      return locker.acquire([resource], 5_000);
    },
    expected: {
      thrown: QUORUM_FAILED,
      votesAgainst: Array(10).fill(LOCKED_0_OF_1),
      // Each attempt's votes, then node-redlock's final clean-up release (nothing to delete).
      emitted: Array(15).fill(LOCKED_0_OF_1),
    },
    deliberate: {
      why: "the clean-up of a failed acquire emits no events (it deletes only what the attempt took)",
      ours: {
        thrown: QUORUM_FAILED,
        votesAgainst: Array(10).fill(LOCKED_0_OF_1),
        emitted: Array(10).fill(LOCKED_0_OF_1),
      },
    },
  },
  {
    name: "releasing a lock twice",
    settings: { retryCount: 0 },
    run: async (locker, resource) => {
      const lock = await locker.acquire([resource], 5_000);
      await lock.release();
      return lock.release();
    },
    expected: { thrown: QUORUM_FAILED, votesAgainst: LOCKED_ON_5, emitted: LOCKED_ON_5 },
    deliberate: {
      why: "release never throws: it resolves with the counts (and the votes) whatever the nodes held",
      ours: { thrown: null, votesAgainst: LOCKED_ON_5, emitted: LOCKED_ON_5 },
    },
  },
  {
    name: "a node that closes the connection mid-call (CLIENT KILL while the script waits)",
    settings: { retryCount: 0 },
    clients: withOwnFirstClient,
    run: async (locker, resource) => {
      const admin = clients[0]!;
      const id = await ownFirstClient!.client("ID");
      // Writes (EVALSHA) wait on node 1 while CLIENT KILL, not a write, goes through.
      await admin.client("PAUSE", 2_000, "WRITE");
      try {
        const acquiring = locker.acquire([resource], 5_000);
        await sleep(50);
        await admin.client("KILL", "ID", id);
        return await acquiring;
      } finally {
        await admin.client("UNPAUSE");
      }
    },
    expected: { thrown: null, votesAgainst: [CLOSED], emitted: [CLOSED] },
  },
  {
    name: "a node that hangs past nodeTimeout (paused)",
    settings: { retryCount: 0 },
    run: async (locker, resource) => {
      masters().pause(0);
      try {
        const lock = await locker.acquire([resource], 5_000); // a majority without node 1
        await sleep(700);
        return lock;
      } finally {
        masters().resume(0);
      }
    },
    expected: { thrown: null, votesAgainst: [], emitted: [] },
    deliberate: {
      why: "each node is bounded by nodeTimeout (500 ms): node-redlock waits for the node, and counts its late vote",
      ours: {
        thrown: null,
        votesAgainst: [
          "NodeTimeoutError (NodeTimeoutError): Node <address> did not answer within 500 ms.",
        ],
        emitted: [
          "NodeTimeoutError (NodeTimeoutError): Node <address> did not answer within 500 ms.",
        ],
      },
    },
  },
  {
    name: "a script error on a node (the key holds another type)",
    settings: { retryCount: 0 },
    run: async (locker, resource) => {
      const lock = await locker.acquire([resource], 5_000);
      await clients[4]!.del(resource);
      await clients[4]!.hset(resource, "field", "value");
      return lock.extend(5_000);
    },
    expected: { thrown: null, votesAgainst: [WRONGTYPE], emitted: [WRONGTYPE] },
  },
  {
    name: "using(): a lock lost while held aborts the signal with the extension's error",
    settings: { retryCount: 0 },
    run: async (locker, resource) => {
      await locker.using(
        [resource],
        1_000,
        { automaticExtensionThreshold: 500 },
        async (signal) => {
          await Promise.all(clients.map((client) => client.del(resource)));
          await sleep(900); // the extension at ~500 ms finds nothing to extend
          if (signal.aborted) throw signal.error;
        },
      );
      return undefined;
    },
    distinct: true,
    expected: { thrown: QUORUM_FAILED, votesAgainst: [LOCKED_0_OF_1], emitted: [LOCKED_0_OF_1] },
  },
  {
    name: "a non-integer duration",
    run: async (locker, resource) => locker.acquire([resource], 10.5),
    expected: {
      thrown: "Error (Error): Duration must be an integer value in milliseconds.",
      votesAgainst: [],
      emitted: [],
    },
  },
  {
    name: "extending an expired lock",
    settings: { retryCount: 0 },
    run: async (locker, resource) => {
      const lock = await locker.acquire([resource], 200);
      await sleep(300);
      return lock.extend(1_000);
    },
    expected: {
      thrown: "ExecutionError (ExecutionError): Cannot extend an already-expired lock.",
      votesAgainst: [],
      emitted: [],
    },
  },
];

describe.runIf(inject("clientKind") === "ioredis")("the same errors as node-redlock", () => {
  it("settings node-redlock accepts silently are refused with a message (deliberate)", () => {
    expect(() => new NodeRedlock(clients, { retryCount: 1.5 })).not.toThrow();
    expect(() => new Redlock(clients, { retryCount: 1.5 })).toThrow(
      'Setting "retryCount" must be an integer >= -1',
    );
  });

  it("errors are this package's classes: same names and messages, not node-redlock's constructors (deliberate)", async () => {
    const ours = await new Redlock(clients)
      .acquire(["dropin:classes"], 10.5)
      .catch((e: unknown) => e);
    const theirs = await new NodeRedlock(clients)
      .acquire(["dropin:classes"], 10.5)
      .catch((e: unknown) => e);
    expect(describeError(ours)).toBe(describeError(theirs));
    // Catch ExecutionError and ResourceLockedError from this package (instanceof), or match by name.
    expect([ExecutionError.name, ResourceLockedError.name]).toEqual([
      "ExecutionError",
      "ResourceLockedError",
    ]);
  });

  it.each(SITUATIONS)("$name", async (situation) => {
    const outcomes: Record<string, Outcome> = {};
    for (const [library, build] of LIBRARIES) {
      const list = situation.clients ? await situation.clients() : clients;
      const locker = build(list, situation.settings ?? {});
      const outcome = await observe(locker, (it) => situation.run(it, `dropin:${randomUUID()}`));
      outcomes[library] = situation.distinct
        ? {
            thrown: outcome.thrown,
            votesAgainst: [...new Set(outcome.votesAgainst)],
            emitted: [...new Set(outcome.emitted)],
          }
        : outcome;
      if (situation.clients) list[0]!.disconnect();
    }
    expect(outcomes["node-redlock"]).toEqual(situation.expected);
    expect(outcomes["ours"]).toEqual(situation.deliberate?.ours ?? situation.expected);
  });
});

describe.runIf(inject("clientKind") === "node-redis")("with node-redis clients", () => {
  it("a closed client votes against with node-redis's own error, as node-redlock on node-redis would", async () => {
    const nodeRedis = await Promise.all(
      masters().urls.map((url) => createClient({ url }).connect()),
    );
    nodeRedis[0]!.destroy();
    try {
      const lock = await new Redlock(nodeRedis, { retryCount: 0 }).acquire(
        [`dropin:${randomUUID()}`],
        5_000,
      );
      expect(await votesOf(lock.attempts)).toEqual([
        "Error (ClientClosedError): The client is closed",
      ]);
      await lock.release();
    } finally {
      await Promise.all(nodeRedis.slice(1).map((client) => client.quit()));
    }
  });
});
