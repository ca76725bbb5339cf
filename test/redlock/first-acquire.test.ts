// test-group: alone
/**
 * The first acquire of an instance with a holder session costs what node-redlock's does (issue 40,
 * item 6): nothing of the session (CLIENT ID, heartbeat, subscriber) goes out in front of the
 * acquire's script on any node, nor in front of the caller's next command, and the key's PTTL read
 * right after is the TTL, as node-redlock's own suite checks. The session still starts from that
 * acquire and beats at once. Private masters, watched with MONITOR: every command they run is ours.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import Redlock, { sessionKey, type Client } from "@redlock-console/redlock";
import { clientKind } from "../lock-clients";
import { usePrivateMasters } from "../masters";
import { clientFor } from "./fixtures/node-clients";
import { monitor } from "./fixtures/monitor";

const NODES = 3;
/** Like node-redlock's suite's duration, 99 past a multiple of 200: its check allows 99 ms. */
const TTL_MS = 60_099;

/** A command as MONITOR shows it, lowercased: "eval …", "client id", "set redlock:session:…". */
type Seen = string;

/** The caller's next command after the acquire: PTTL on the library's own client of node 0. */
async function pttlOn(client: Client, key: string): Promise<number> {
  if (clientKind() === "ioredis") return (client as Redis).pttl(key);
  const nodeRedis = client as unknown as { sendCommand(args: string[]): Promise<number> };
  return nodeRedis.sendCommand(["PTTL", key]);
}

describe(`${clientKind()} clients: the first acquire of an instance with a session`, () => {
  const { masters } = usePrivateMasters(NODES);
  const seen: Seen[][] = [];

  /** One client of this project's kind per master, connected and idle (quit() closes them). */
  const readyClients = () =>
    Promise.all(
      masters().urls.map(async (url) => {
        const client = await clientFor(clientKind(), { url });
        if (client instanceof Redis && client.status !== "ready")
          await new Promise((ready) => client.once("ready", ready));
        return client;
      }),
    );

  it("sends no command of its session before the acquire's script or the caller's next command", async () => {
    const clients = await readyClients();
    // Connected and idle from here: whatever the masters run next comes from this instance.
    const monitors = await Promise.all(
      masters().urls.map(async (url, index) => {
        seen[index] = [];
        return monitor(Number(new URL(url).port), (args) => {
          seen[index]!.push(args.join(" ").toLowerCase());
        });
      }),
    );
    const redlock = new Redlock(clients, { retryCount: 0, session: { heartbeatMs: 200 } });
    const resource = `first-acquire:${randomUUID()}`;
    let pttlMs: number;
    try {
      const lock = await redlock.acquire([resource], TTL_MS);
      pttlMs = await pttlOn(clients[0]!, resource);
      // The session still starts from that acquire, and its heartbeat goes out at once.
      const heartbeat = `set ${sessionKey(redlock.session!.id)}`.toLowerCase();
      await vi.waitFor(
        () =>
          expect(seen.every((sent) => sent.some((command) => command.startsWith(heartbeat)))).toBe(
            true,
          ),
        { timeout: 20_000, interval: 10 }, // a wait for the event, not a latency
      );
      await lock.release();
    } finally {
      monitors.forEach((watching) => watching.close());
      await redlock.quit();
    }

    // The script's SET on the resource (MONITOR logs a script's commands before the EVAL itself).
    for (const sent of seen) expect(sent[0]).toMatch(new RegExp(`^set ${resource} `));
    const pttlAt = seen[0]!.indexOf(`pttl ${resource}`.toLowerCase());
    expect(pttlAt).toBeGreaterThan(0);
    expect(seen[0]!.indexOf("client id")).toBeGreaterThan(pttlAt);
    // node-redlock's suite's check right after the acquire (its "expiration was off by more than
    // 200ms"): the session's work costs the lock none of its TTL.
    expect(Math.floor(pttlMs / 200)).toBe(Math.floor(TTL_MS / 200));
  });
});
