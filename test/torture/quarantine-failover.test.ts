/**
 * Restart quarantine across a failover behind one address: a lock node reached through a TCP proxy
 * (as through a sidecar, a DNS name or a floating IP) that is repointed from server A to a standby B
 * which has run for longer than the window. B's uptime says nothing of the locks A held: its
 * different run_id alone must withhold the node's vote for the window, from when it was seen.
 */
// test-group: timed
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import Redlock, { ExecutionError, NodeQuarantinedError } from "@redlock-console/redlock";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { TcpProxy } from "../tcp-proxy";
import { blockOn, quiet, unblock, waitAllVoting, waitFor, waitRestartSeen } from "./support";

// Five lock nodes' servers, and the standby (index 5) that node 2's address fails over to.
const { masters } = usePrivateMasters(6);
const STANDBY = 5;
const PROXIED = 2;
const quarantineMs = 1_500;
let opened: Redis[][] = [];
let proxies: TcpProxy[] = [];

afterEach(async () => {
  await Promise.all(opened.map(disconnect));
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  opened = [];
  proxies = [];
});

async function proxiedNodes(): Promise<{ urls: string[]; proxy: TcpProxy }> {
  const proxy = await TcpProxy.start(masters().masters[PROXIED]!.port);
  proxies.push(proxy);
  const urls = masters().urls.slice(0, 5);
  urls[PROXIED] = proxy.url;
  return { urls, proxy };
}

async function redlockOn(urls: string[]): Promise<{ clients: Redis[]; redlock: Redlock }> {
  const clients = quiet(connect(urls));
  opened.push(clients);
  const redlock = new Redlock(clients, { restartQuarantine: quarantineMs, retryCount: 0 });
  await waitAllVoting(redlock);
  return { clients, redlock };
}

/** The standby has run longer than the window (plus a second tick): its uptime alone admits it. */
async function standbyOlderThanWindow(): Promise<Redis> {
  const [standby] = connect([masters().urls[STANDBY]!]) as [Redis];
  opened.push([standby]);
  const uptimeS = async () =>
    Number(/^uptime_in_seconds:(\d+)/m.exec(await standby.info("server"))?.[1]);
  await waitFor("the standby to outlive the window", async () => {
    return (await uptimeS()) * 1000 >= quarantineMs + 2_000;
  });
  return standby;
}

describe("restart quarantine behind a repointed address", () => {
  it("withholds the vote of a node whose address now reaches another process, however long it has run, for the window from when it was seen", async () => {
    const { urls, proxy } = await proxiedNodes();
    const holder = await redlockOn(urls);
    const contender = await redlockOn(urls);
    await standbyOlderThanWindow();
    const resource = "quarantine:failover";
    await blockOn(holder.clients, [3, 4], resource);
    const held = await holder.redlock.acquire([resource], 20_000); // on nodes 0, 1 and A
    await unblock(holder.clients, [3, 4], resource);

    const runIdOfA = contender.redlock.nodeStates()[PROXIED]!.runId;
    const repointedAt = Date.now();
    proxy.repoint(masters().masters[STANDBY]!.port);
    await waitRestartSeen(contender.redlock, PROXIED, runIdOfA);
    const state = contender.redlock.nodeStates()[PROXIED]!;
    expect(state.uptimeS! * 1000).toBeGreaterThan(quarantineMs);
    expect(state.status).toBe("quarantined");
    expect(state.quarantinedUntil!).toBeGreaterThanOrEqual(repointedAt + quarantineMs);

    // Nodes 3 and 4 and the empty B would make a majority while A's holder still holds.
    const outcome = await contender.redlock.acquire([resource], 5_000).then(
      () => "acquired",
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(ExecutionError);
    const votes = (await (outcome as ExecutionError).attempts[0]!).nodes;
    expect(votes.map((vote) => vote.vote)).toEqual(["against", "against", "against", "for", "for"]);
    expect(votes[PROXIED]!.error).toBeInstanceOf(NodeQuarantinedError);
    expect(await holder.clients[0]!.get(resource)).toBe(held.value);

    await waitFor("the window to pass", () => {
      return contender.redlock.nodeStates()[PROXIED]!.status === "ok";
    });
    expect(Date.now()).toBeGreaterThanOrEqual(state.quarantinedUntil!);
    await held.release();
  });

  it("gives a node reconnected to the same process its vote at once", async () => {
    const { urls, proxy } = await proxiedNodes();
    await standbyOlderThanWindow(); // its servers, started with the standby, are as old
    const { clients, redlock } = await redlockOn(urls);
    const closed = new Promise((resolve) => clients[PROXIED]!.once("close", resolve));
    proxy.repoint(masters().masters[PROXIED]!.port); // the same server: only the connections drop
    await closed;
    await waitFor("node 2 to be checked again", () => {
      return (
        clients[PROXIED]!.status === "ready" && redlock.nodeStates()[PROXIED]!.status !== "unknown"
      );
    });
    expect(redlock.nodeStates()[PROXIED]!.status).toBe("ok");
  });
});
