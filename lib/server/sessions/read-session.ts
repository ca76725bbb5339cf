import "server-only";
/**
 * Reads holder sessions on every lock node, for liveness.ts: per node, the session key's value and
 * PTTL (one MULTI, so both describe the same heartbeat), the server's uptime (INFO server), its
 * idle-client timeout (CONFIG GET timeout, asked again now) and whether each heartbeat's connection
 * is still open (one CLIENT LIST ID for all of them). Always a fresh read of the nodes, each bounded
 * by the node deadline: deciding never trusts a cache. What must have held since the heartbeat was
 * written (`timeout` 0, the same server for the key) comes from node-watch.ts's continuous watch,
 * measured back from the moment this read began (heartbeat ages are measured at or after it).
 *
 * On a cluster node the session key is single-key, so the cluster client routes GET and PTTL; the
 * uptime, CLIENT LIST and CLUSTER MYID must come from the primary that owns the key's slot, where the
 * heartbeat's connection is (another shard knows nothing of it), found by the client's slot map.
 */
import type { Cluster, Redis } from "ioredis";
import { clusterSlot, sessionKey } from "@redlock-console/redlock";
import type { HolderSession } from "@/lib/api";
import { ownerOfValue, sessionOfValue } from "../locks/read/ownership";
import { withDeadline, type ConsoleNode } from "../node-registry";
import { askServer, primaryOwning } from "./ask-server";
import { connectedSinceMs, slotServedSinceMs, watchCluster } from "./node-watch";
import { deriveLiveness, type Liveness, type SessionReading } from "./liveness";
import { parseHeartbeat } from "./session-keys";

const NO_ANSWER: SessionReading = {
  answered: false,
  uptimeS: null,
  timeoutZeroForMs: null,
  keyServerForMs: null,
  sessionValue: null,
  pttlMs: -2,
  clientConnected: null,
};

async function valueAndPttl(
  client: Redis | Cluster,
  key: string,
): Promise<{ value: string | null; pttlMs: number }> {
  const replies = await client.multi().get(key).pttl(key).exec();
  if (!replies) throw new Error("transaction aborted");
  const [[getError, value], [pttlError, pttlMs]] = replies as [
    [Error | null, unknown],
    [Error | null, unknown],
  ];
  if (getError || pttlError) throw getError ?? pttlError;
  return { value: typeof value === "string" ? value : null, pttlMs: Number(pttlMs) };
}

async function readOnNode(
  node: ConsoleNode,
  sessionIds: readonly string[],
): Promise<SessionReading[]> {
  const readStartMs = Date.now();
  const forMs = (sinceMs: number | null) =>
    sinceMs === null ? null : Math.max(0, readStartMs - sinceMs);
  if (node.kind === "cluster") watchCluster(node.client);
  const keys = sessionIds.map(sessionKey);
  const reads = await Promise.all(keys.map((key) => valueAndPttl(node.client, key)));
  const servers = keys.map((key) =>
    node.kind === "single" ? node.client : primaryOwning(node.client, key),
  );
  const clientIdOf = reads.map(({ value }) =>
    value === null ? null : (parseHeartbeat(value)?.clientId ?? null),
  );
  const perServer = new Map<Redis, number[]>();
  servers.forEach((server, index) => {
    if (!server) return;
    const ids = perServer.get(server) ?? [];
    const clientId = clientIdOf[index];
    if (clientId !== null && clientId !== undefined && !ids.includes(clientId)) ids.push(clientId);
    perServer.set(server, ids);
  });
  const answers = new Map(
    await Promise.all(
      [...perServer].map(
        async ([server, ids]) =>
          [server, await askServer(server, ids, node.kind === "cluster")] as const,
      ),
    ),
  );
  return reads.map(({ value, pttlMs }, index) => {
    const server = servers[index];
    const answer = server ? answers.get(server) : undefined;
    const clientId = clientIdOf[index];
    const keyServerSinceMs =
      !server || !answer
        ? null
        : node.kind === "single"
          ? connectedSinceMs(server)
          : answer.primaryId === null
            ? null
            : slotServedSinceMs(node.client, clusterSlot(keys[index]!), answer.primaryId);
    return {
      answered: true,
      uptimeS: answer?.uptimeS ?? null,
      timeoutZeroForMs: forMs(answer?.timeoutZeroSinceMs ?? null),
      keyServerForMs: forMs(keyServerSinceMs),
      sessionValue: value,
      pttlMs,
      clientConnected:
        clientId === null || clientId === undefined || !answer?.connected
          ? null
          : answer.connected.has(clientId),
    };
  });
}

/**
 * What every node says of each session: `readings[session][node]`, nodes in registry order. A node
 * that does not answer within `deadlineMs` reads as not answered for every session.
 */
export async function readSessions(
  nodes: readonly ConsoleNode[],
  sessionIds: readonly string[],
  deadlineMs: number,
): Promise<SessionReading[][]> {
  if (sessionIds.length === 0) return [];
  const perNode = await Promise.all(
    nodes.map((node) =>
      withDeadline(readOnNode(node, sessionIds), deadlineMs).catch(() =>
        sessionIds.map(() => NO_ANSWER),
      ),
    ),
  );
  return sessionIds.map((_, session) => perNode.map((readings) => readings[session]!));
}

/** One session's liveness, read fresh from every node; "unknown" at once without a session id. */
export async function readLiveness(
  nodes: readonly ConsoleNode[],
  sessionId: string | null,
  deadlineMs: number,
): Promise<Liveness> {
  if (sessionId === null) return deriveLiveness(null, [], Date.now());
  const [readings] = await readSessions(nodes, [sessionId], deadlineMs);
  return deriveLiveness(sessionId, readings!, Date.now());
}

/**
 * The session of whoever holds `value` (null: the resource is free), as the lock read and the
 * force-release dialog show it. Labels come from the heartbeat, else from the value's owner part.
 */
export async function readHolderSession(
  nodes: readonly ConsoleNode[],
  value: string | null,
  deadlineMs: number,
): Promise<HolderSession | null> {
  if (value === null) return null;
  const id = sessionOfValue(value);
  const liveness = await readLiveness(nodes, id, deadlineMs);
  const labels =
    id !== null && Object.keys(liveness.labels).length === 0
      ? (ownerOfValue(value)?.labels ?? {})
      : liveness.labels;
  return { id, ...liveness, labels };
}
