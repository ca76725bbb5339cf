import "server-only";
/**
 * Where personal tokens live: on the lock nodes, like the audit trail and the sign-out records, so
 * that every console replica shares them with no other store to run (CONSOLE_STATE_URL is
 * optional, and one console per state store). Per token, one string key with the record (JSON,
 * only a hash of the secret) and one with its last use, both expiring with the token, under one
 * hash tag so that MGET reads both from a cluster node; a sorted set lists the ids for listing.
 *
 * Read rule (fail closed): a token is valid only while the same record is present and unexpired on
 * a majority of ALL the lock nodes. A record lost on a node (restart without persistence, eviction,
 * FLUSHALL) counts against it, so losing records can only revoke a token, never resurrect one; a
 * revocation that reached a majority leaves a minority holding it, which is not enough. A record
 * is never copied back to a node that lacks it (that would be resurrection by repair).
 */
import { RESERVED_PREFIX } from "@/lib/api";
import { z } from "zod";
import { ApiError } from "../../errors";
import { withDeadline, type ConsoleNode } from "../../node-registry";

export const TOKEN_KEY_PREFIX = `${RESERVED_PREFIX}console:token:`;
export const TOKEN_INDEX_KEY = `${RESERVED_PREFIX}console:tokens`;
export const recordKeyOf = (id: string) => `${TOKEN_KEY_PREFIX}{${id}}`;
export const usedKeyOf = (id: string) => `${TOKEN_KEY_PREFIX}{${id}}:used`;

const grantSchema = z.object({
  role: z.enum(["viewer", "operator", "admin"]),
  resources: z.array(z.string()).nullable(),
  services: z.array(z.string()).nullable(),
  rule: z.string(),
});

/** What is stored: everything but the secret, of which only its SHA-256 (secret.ts). */
export const tokenRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  name: z.string(),
  owner: z.object({
    subject: z.string(),
    issuer: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
  }),
  grants: z.array(grantSchema).min(1),
  createdAt: z.number(),
  expiresAt: z.number(),
  secretHash: z.string(),
});
export type TokenRecord = z.infer<typeof tokenRecordSchema>;

export interface StoredToken {
  /** The record a majority of all nodes holds, unexpired; null when there is none. */
  readonly record: TokenRecord | null;
  /** Some node's copy, for deciding who may revoke a token whose majority is already gone. */
  readonly anyCopy: TokenRecord | null;
  readonly lastUsedAt: number | null;
  /** Fewer than a majority answered: nothing can be decided either way. */
  readonly undecided: boolean;
}

export interface TokenStore {
  /** Writes the record on every reachable node; a majority, or nothing (rolled back, 503). */
  put(record: TokenRecord, nowMs: number): Promise<string[]>;
  get(id: string, nowMs: number): Promise<StoredToken>;
  /** The ids of tokens not yet expired, from every node that answers. */
  ids(nowMs: number, limit: number): Promise<{ ids: string[]; unreachableNodes: string[] }>;
  /** Deletes the record on every reachable node; 503 unless a majority answered. */
  remove(id: string): Promise<string[]>;
  /** Last use, written by the caller at most once per resolution. */
  touch(id: string, nowMs: number, expiresAt: number): void;
}

function parseRecord(raw: string | null): TokenRecord | null {
  if (raw === null) return null;
  try {
    const parsed = tokenRecordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function createTokenStore(
  nodes: readonly ConsoleNode[],
  quorumSize: number,
  deadlineMs: number,
  isHung: (node: ConsoleNode) => boolean,
): TokenStore {
  /** Runs `command` on every node not hung; undefined where it failed or did not answer. */
  const onEveryNode = <T>(command: (node: ConsoleNode) => Promise<T>) =>
    Promise.all(
      nodes.map((node) =>
        isHung(node) ? undefined : withDeadline(command(node), deadlineMs).catch(() => undefined),
      ),
    );
  const tooFew = (what: string, answered: number, after: string) =>
    new ApiError(
      "quorum_unavailable",
      `${what} needs a majority of the lock nodes (${quorumSize} of ${nodes.length}); ${answered} answered. ${after}`,
    );
  const remove = async (id: string) => {
    const deleted = await onEveryNode(async (node) => {
      await node.client.del(recordKeyOf(id), usedKeyOf(id));
      await node.client.zrem(TOKEN_INDEX_KEY, id);
      return true;
    });
    return nodes.filter((_, index) => deleted[index]).map((node) => node.id);
  };

  return {
    async put(record, nowMs) {
      const ttlMs = Math.max(1, record.expiresAt - nowMs);
      const stored = await onEveryNode(async (node) => {
        await node.client.zadd(TOKEN_INDEX_KEY, record.expiresAt, record.id);
        return (
          (await node.client.set(
            recordKeyOf(record.id),
            JSON.stringify(record),
            "PX",
            ttlMs,
            "NX",
          )) === "OK"
        );
      });
      const storedOn = nodes.filter((_, index) => stored[index]).map((node) => node.id);
      if (storedOn.length >= quorumSize) return storedOn;
      await remove(record.id); // no partial token: a minority copy would never be valid anyway
      throw tooFew(
        "Creating a token",
        storedOn.length,
        "Nothing was kept; retry when the nodes are up.",
      );
    },

    async get(id, nowMs) {
      const replies = await onEveryNode((node) => node.client.mget(recordKeyOf(id), usedKeyOf(id)));
      const answered = replies.filter((reply) => reply !== undefined);
      const copies = new Map<string, number>();
      let lastUsedAt: number | null = null;
      let anyCopy: TokenRecord | null = null;
      for (const reply of answered) {
        const [raw, used] = reply;
        const record = parseRecord(raw ?? null);
        if (record && record.id === id) {
          anyCopy ??= record;
          copies.set(raw!, (copies.get(raw!) ?? 0) + 1);
        }
        const usedAt = Number(used);
        if (used && Number.isFinite(usedAt)) lastUsedAt = Math.max(lastUsedAt ?? 0, usedAt);
      }
      // The same record (byte for byte) on a majority of all nodes, not of those answering.
      const [agreed] = [...copies].find(([, count]) => count >= quorumSize) ?? [];
      const record = agreed === undefined ? null : parseRecord(agreed);
      return {
        record: record && record.expiresAt > nowMs ? record : null,
        anyCopy,
        lastUsedAt,
        undecided: record === null && answered.length < quorumSize,
      };
    },

    async ids(nowMs, limit) {
      const replies = await onEveryNode((node) =>
        node.client.zrangebyscore(TOKEN_INDEX_KEY, nowMs, "+inf", "LIMIT", 0, limit),
      );
      const ids = new Set(replies.flatMap((reply) => reply ?? []));
      const unreachableNodes = nodes.filter((_, index) => !replies[index]).map((node) => node.id);
      // Expired ids leave the index as it is read (the records expire by themselves).
      void onEveryNode((node) => node.client.zremrangebyscore(TOKEN_INDEX_KEY, "-inf", nowMs));
      return { ids: [...ids].slice(0, limit), unreachableNodes };
    },

    async remove(id) {
      const removedOn = await remove(id);
      if (removedOn.length < quorumSize)
        throw tooFew(
          "Revoking a token",
          removedOn.length,
          "This console refuses the token from now on; other replicas may still accept it until a retry reaches a majority.",
        );
      return removedOn;
    },

    touch(id, nowMs, expiresAt) {
      const ttlMs = expiresAt - nowMs;
      if (ttlMs <= 0) return;
      void onEveryNode((node) => node.client.set(usedKeyOf(id), String(nowMs), "PX", ttlMs));
    },
  };
}
