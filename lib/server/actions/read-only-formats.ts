import "server-only";
/**
 * Lock formats the console reads but never acts on (issue 44): redis-semaphore's sorted set
 * `semaphore:<key>`. Its holders are members of one key, which no tombstone or marker of this
 * library can reserve one by one, and its library reads neither: force-release and revoke of such a
 * key are refused up front (409 read_only_format), before any write or audit. Only keys under
 * that name pay the check: one TYPE per node, bounded by the node deadline.
 */
import { ApiError } from "../errors";
import { REDIS_SEMAPHORE_PREFIX } from "../locks/read/read-key";
import type { NodeDeps } from "./deps";

const READ_ONLY_MESSAGE =
  "This key is a redis-semaphore semaphore (a sorted set of holders): the console reads it only. " +
  "Release its holders from the application that holds them.";

/** Throws 409 read_only_format when a node holds `key` as redis-semaphore's sorted set. */
export async function assertWritableFormat(
  ctx: Pick<NodeDeps, "registry" | "nodeDeadlineMs">,
  key: Buffer,
): Promise<void> {
  if (!key.toString("latin1").startsWith(REDIS_SEMAPHORE_PREFIX)) return;
  const typeOn = (client: { type(key: Buffer): Promise<string> }) =>
    Promise.race([
      client.type(key).catch(() => "unknown"),
      new Promise<string>((resolve) => setTimeout(resolve, ctx.nodeDeadlineMs, "unknown")),
    ]);
  const types = await Promise.all(ctx.registry.nodes.map((node) => typeOn(node.client)));
  if (types.includes("zset")) throw new ApiError("read_only_format", READ_ONLY_MESSAGE);
}
