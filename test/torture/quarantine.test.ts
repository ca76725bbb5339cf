// test-group: timed
/**
 * Restart quarantine (DESIGN duty 7): a master restarted less than `restartQuarantine` ago gets no
 * vote until the window has passed; the error and nodeStates() say which node and until when;
 * and the check costs no round trip per lock operation.
 */
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import Redlock, {
  ExecutionError,
  NodeQuarantinedError,
  type Settings,
} from "@redlock-console/redlock";
import { callsPerCommand } from "@/scripts/command-stats";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { blockOn, quiet, waitAllVoting, waitNodeStatus, waitRestartSeen } from "./support";

const { masters } = usePrivateMasters();
const ttlMs = 1_000;
const quarantineMs = 1_500;
let opened: Redis[][] = [];

afterEach(async () => {
  await Promise.all(opened.map(disconnect));
  opened = [];
});

async function ready(
  restartQuarantine: number | false,
  nodeTimeout = 200,
  settings: Partial<Settings> = {},
): Promise<{ clients: Redis[]; redlock: Redlock }> {
  const clients = quiet(connect(masters().urls));
  opened.push(clients);
  const redlock = new Redlock(clients, {
    restartQuarantine,
    retryCount: 0,
    nodeTimeout,
    ...settings,
  });
  await waitAllVoting(redlock);
  return { clients, redlock };
}

const refusal = (redlock: Redlock, resource: string) =>
  redlock.acquire([resource], ttlMs).then(
    () => undefined,
    (error: unknown) => error,
  );

const delta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([command, calls]) => [command, calls - (before[command] ?? 0)])
      .filter(([, calls]) => calls !== 0),
  );

describe("restart quarantine", () => {
  it("refuses a restarted node's vote until the window has passed, naming the node and until when", async () => {
    const { clients, redlock } = await ready(quarantineMs);
    const resource = "quarantine:window";
    await blockOn(clients, [3, 4], resource); // the lock can only be won on nodes 1-3
    await masters().restartEmpty(2);
    const restartedAt = Date.now();
    await waitNodeStatus(redlock, clients[2]!, 2, "quarantined");
    const state = redlock.nodeStates()[2]!;
    // uptime_in_seconds counts second ticks, so a process a few ms old may already report 1.
    expect(state.uptimeS).toBeLessThanOrEqual(1);
    expect(state.quarantinedUntil!).toBeGreaterThanOrEqual(restartedAt + quarantineMs - 500);
    expect(state.quarantinedUntil!).toBeLessThanOrEqual(Date.now() + quarantineMs);
    expect(redlock.nodeStates().map((node) => node.status)).toEqual([
      "ok",
      "ok",
      "quarantined",
      "ok",
      "ok",
    ]);

    const refused = await refusal(redlock, resource);
    expect(refused).toBeInstanceOf(ExecutionError);
    const address = `127.0.0.1:${masters().masters[2]!.port}`;
    // The message is node-redlock's; which node is quarantined, and until when, are fields.
    expect((refused as ExecutionError).message).toBe(
      "The operation was unable to achieve a quorum during its retry window.",
    );
    const [named] = (refused as ExecutionError).quarantined;
    expect(named?.address).toBe(address);
    expect(Math.abs(named!.quarantinedUntil - state.quarantinedUntil!)).toBeLessThanOrEqual(5);
    const vote = (await (refused as ExecutionError).attempts[0]!).nodes[2]!;
    expect(vote.error).toBeInstanceOf(NodeQuarantinedError);
    expect((vote.error as NodeQuarantinedError).quarantinedUntil).toBeCloseTo(
      state.quarantinedUntil!,
      -1,
    );

    await sleep(state.quarantinedUntil! - Date.now() - 250);
    expect(await refusal(redlock, resource)).toBeInstanceOf(ExecutionError); // still inside the window
    await sleep(state.quarantinedUntil! - Date.now() + 30);
    expect(redlock.nodeStates()[2]!.status).toBe("ok");
    const lock = await redlock.acquire([resource], ttlMs);
    expect((await lock.attempts[0]!).nodes.map((node) => node.vote)).toEqual([
      "for",
      "for",
      "for",
      "against",
      "against",
    ]);
    await lock.release();
  });

  it("quarantines a node restarted just before a whole second for the full window (uptime_in_seconds counts second ticks)", async () => {
    const { clients, redlock } = await ready(quarantineMs);
    let ticksCrossed = 0;
    for (let tries = 0; tries < 8 && ticksCrossed === 0; tries += 1) {
      // Start the new process just before the second ticks over; earlier on each try, for a slow machine.
      const leadMs = 40 + 30 * tries;
      await sleep((2_000 - leadMs - (Date.now() % 1_000)) % 1_000);
      const oldRunId = redlock.nodeStates()[1]!.runId;
      const restartBegan = Date.now();
      await masters().restartEmpty(1);
      await waitRestartSeen(redlock, 1, oldRunId);
      const state = redlock.nodeStates()[1]!;
      if (state.uptimeS === 1) ticksCrossed += 1; // a process well under 1 s old, reported as 1 s old
      expect(state.status).toBe("quarantined");
      expect(state.quarantinedUntil!).toBeGreaterThanOrEqual(restartBegan + quarantineMs);
      expect(clients[1]!.status).toBe("ready");
    }
    expect(ticksCrossed).toBeGreaterThan(0);
  });

  it("does not count the answer of a restarted node to a command re-sent after reconnecting", async () => {
    const holder = await ready(quarantineMs);
    const contender = await ready(quarantineMs, 3_000); // long enough for node 3 to restart meanwhile
    const resource = "quarantine:resent";
    await blockOn(holder.clients, [3, 4], resource);
    const held = await holder.redlock.acquire([resource], 5_000); // on nodes 1-3 only
    await Promise.all([3, 4].map((index) => holder.clients[index]!.del(resource)));
    masters().pause(2); // node 3 will not answer: the contender's command stays in flight...
    const pending = contender.redlock.acquire([resource], 5_000).then(
      () => "acquired",
      (error: unknown) => error,
    );
    await sleep(50);
    await masters().restartEmpty(2); // ...until node 3 dies; ioredis re-sends it to the new, empty node 3
    const outcome = await pending;
    expect(outcome).toBeInstanceOf(ExecutionError);
    const votes = (await (outcome as ExecutionError).attempts[0]!).nodes;
    expect(votes.map((vote) => vote.vote)).toEqual(["against", "against", "against", "for", "for"]);
    expect(await holder.clients[0]!.get(resource)).toBe(held.value);
    expect(await holder.clients[2]!.get(resource)).toBeNull(); // the failed attempt cleaned up its late key
  });

  it("costs no extra command per lock operation: the same commandstats as with quarantine off", async () => {
    const observers = connect(masters().urls);
    opened.push(observers);
    const cycles = 20;
    const callsFor = async (restartQuarantine: number | false) => {
      // Owner entries would add their own commands to each script: this counts the lock's alone.
      const { redlock } = await ready(restartQuarantine, 200, { owner: false, waiters: false });
      // Every node's delete is in by `settled` (release itself resolves at a majority).
      const cycle = async () => {
        const lock = await redlock.acquire([`quarantine:cost:${restartQuarantine}`], ttlMs);
        await (
          await lock.release()
        ).settled;
      };
      await cycle(); // sends the scripts to every node, so the first EVAL of each is not counted below
      const before = await callsPerCommand(observers);
      for (let index = 0; index < cycles; index += 1) await cycle();
      return delta(before, await callsPerCommand(observers));
    };
    const withQuarantine = await callsFor(quarantineMs);
    const withoutQuarantine = await callsFor(false);
    // At most one EVALSHA per node for each release (a one-resource acquire is a plain SET NX PX,
    // or rides in the same batch call as a release it meets on a node, depending on timing); the
    // commands are exact: one SET NX per acquire and one GET+DEL per release per node, and one
    // EXISTS (is anyone waiting to be handed the lock?) on the three nodes that wake waits.
    // The only INFO is our first read.
    const lockCommands = ({ info, exists = 0, set, get, del }: Record<string, number>) => ({
      info,
      exists,
      set,
      get,
      del,
    });
    // A connection's first batch call goes as EVAL (script.ts): at most one per node.
    const scriptCalls = ({ evalsha = 0, eval: evals = 0 }: Record<string, number>) =>
      evalsha + evals;
    expect(scriptCalls(withQuarantine)).toBeLessThanOrEqual(cycles * 5);
    expect(scriptCalls(withoutQuarantine)).toBeLessThanOrEqual(cycles * 5);
    expect(withQuarantine.eval ?? 0).toBeLessThanOrEqual(5);
    expect(lockCommands(withQuarantine)).toEqual({
      info: 5,
      exists: cycles * 3,
      set: cycles * 5,
      get: cycles * 5,
      del: cycles * 5,
    });
    expect(lockCommands(withoutQuarantine)).toEqual(lockCommands(withQuarantine));
  });
});
