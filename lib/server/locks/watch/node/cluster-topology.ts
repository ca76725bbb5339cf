/**
 * A Redis Cluster's topology as CLUSTER SHARDS reports it: each shard's slot ranges, its primary and
 * its replicas (cluster-watch.ts follows failovers and reshardings by it).
 */

/** A server of the cluster as CLUSTER SHARDS reports it. */
export interface ShardMember {
  readonly address: string;
  readonly host: string;
  readonly port: number;
  readonly role: string;
  readonly health: string;
}

/** One shard of CLUSTER SHARDS: its slot ranges, its primary, its replicas. */
export interface ShardTopology {
  readonly slotRanges: ReadonlyArray<readonly [number, number]>;
  readonly primary: ShardMember | null;
  readonly replicas: readonly ShardMember[];
}

const pairsOf = (reply: unknown): Map<string, unknown> => {
  const map = new Map<string, unknown>();
  if (!Array.isArray(reply)) return map;
  for (let index = 0; index + 1 < reply.length; index += 2)
    map.set(String(reply[index]), reply[index + 1]);
  return map;
};

/** CLUSTER SHARDS (Redis 7): [[slots, [start, end, …], nodes, [[field, value, …], …]], …]. */
export function parseClusterShards(reply: unknown, tls: boolean): ShardTopology[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((entry): ShardTopology => {
    const shard = pairsOf(entry);
    const slots = (shard.get("slots") as unknown[] | undefined) ?? [];
    const slotRanges: Array<[number, number]> = [];
    for (let index = 0; index + 1 < slots.length; index += 2)
      slotRanges.push([Number(slots[index]), Number(slots[index + 1])]);
    const members = ((shard.get("nodes") as unknown[] | undefined) ?? []).map((node) => {
      const fields = pairsOf(node);
      const host = String(fields.get("endpoint") ?? fields.get("ip") ?? "");
      const port = Number(fields.get(tls ? "tls-port" : "port") ?? fields.get("port"));
      return {
        address: `${host}:${port}`,
        host,
        port,
        role: String(fields.get("role") ?? ""),
        health: String(fields.get("health") ?? ""),
      };
    });
    // A failed primary stays listed as a master until a replica is promoted: it is still the shard's.
    const primary = members.find((member) => member.role === "master") ?? null;
    return {
      slotRanges,
      primary,
      replicas: members.filter((member) => member.role !== "master"),
    };
  });
}
