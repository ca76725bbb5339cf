/**
 * A fenced store: the protected resource of the torture test. It keeps, per resource, the highest
 * fencing token it has accepted, and refuses any write whose token is lower, or equal but from
 * another holder. It lives in its own Redis (never faulted), apart from the lock masters, as a
 * database guarded by fencing tokens would.
 */
import type { Redis } from "ioredis";

/** Compare-and-set in one script, so two writers cannot interleave between the check and the set. */
const FENCED_WRITE_SCRIPT = `
local highest = tonumber(redis.call("hget", KEYS[1], "token") or "-1")
local token = tonumber(ARGV[1])
if token > highest or (token == highest and redis.call("hget", KEYS[1], "holder") == ARGV[2]) then
  redis.call("hset", KEYS[1], "token", ARGV[1], "holder", ARGV[2], "data", ARGV[3])
  return 1
end
return 0
`;

export const STORE_PREFIX = "fenced-store:";

export class FencedStore {
  constructor(private readonly client: Pick<Redis, "eval" | "hgetall">) {}

  /** Writes `data` for `resource` as the holder `holderValue` with `token`; false if refused. */
  async write(
    resource: string,
    token: number,
    holderValue: string,
    data: string,
  ): Promise<boolean> {
    const reply = await this.client.eval(
      FENCED_WRITE_SCRIPT,
      1,
      STORE_PREFIX + resource,
      token,
      holderValue,
      data,
    );
    return Number(reply) === 1;
  }

  /** The last accepted write of `resource`, if any. */
  async read(
    resource: string,
  ): Promise<{ token: number; holder: string; data: string } | undefined> {
    const fields = await this.client.hgetall(STORE_PREFIX + resource);
    if (fields.token === undefined) return undefined;
    return { token: Number(fields.token), holder: fields.holder ?? "", data: fields.data ?? "" };
  }
}
