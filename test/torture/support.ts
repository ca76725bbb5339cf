/** Helpers shared by the quarantine, fencing and negative-control tests. */
import type { Redis } from "ioredis";
import type Redlock from "@redlock-console/redlock";
import type { NodeState } from "@redlock-console/redlock";
import { sleep } from "../masters";

/** Tests restart masters on purpose: their clients' connection errors are expected, not news. */
export const quiet = (clients: Redis[]): Redis[] =>
  clients.map((client) => client.on("error", () => undefined));

/** Polls `check` every 20 ms until it returns true; fails with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await sleep(20);
  }
}

/** Fresh masters are themselves "just restarted": wait until the library gives every node a vote. */
export const waitAllVoting = (redlock: Redlock, timeoutMs = 10_000) =>
  waitFor(
    "every node to vote",
    () => redlock.nodeStates().every((state) => state.status === "ok"),
    timeoutMs,
  );

/** Waits until the client is connected and the library has checked the node's restart time. */
export const waitNodeStatus = (
  redlock: Redlock,
  client: Redis,
  index: number,
  status: NodeState["status"],
) =>
  waitFor(
    `node ${index} to be ${status}`,
    () => client.status === "ready" && redlock.nodeStates()[index]!.status === status,
  );

/** Waits until the library has checked a restarted node: its run_id differs from `oldRunId`. */
export const waitRestartSeen = (redlock: Redlock, index: number, oldRunId: string | undefined) =>
  waitFor(`the restart of node ${index} to be seen`, () => {
    const state = redlock.nodeStates()[index]!;
    return state.runId !== undefined && state.runId !== oldRunId && state.status !== "unknown";
  });

/** Leaves a stray key of another holder on the given nodes, so an acquire can only win elsewhere. */
export async function blockOn(
  clients: Redis[],
  indexes: number[],
  resource: string,
  ttlMs = 60_000,
): Promise<void> {
  await Promise.all(
    indexes.map((index) => clients[index]!.set(resource, "f".repeat(40), "PX", ttlMs)),
  );
}

export async function unblock(
  clients: Redis[],
  indexes: number[],
  resource: string,
): Promise<void> {
  await Promise.all(indexes.map((index) => clients[index]!.del(resource)));
}
