import { RedlockError } from "./errors";
import type { RedisDriver } from "./driver";
import { defineScript, evaluate, type Script, type ScriptArg } from "./script";

/** A script command waiting for its node's next batch. */
export interface QueuedCommand {
  readonly script: Script;
  readonly keys: readonly string[];
  readonly args: readonly ScriptArg[];
  resolve(reply: unknown): void;
  reject(error: unknown): void;
}

/** One script that runs several operations of the given scripts in one call (see defineBatchScript). */
export interface BatchScript extends Script<readonly ScriptArg[], unknown[]> {
  /** The shas of the scripts a batch may carry. */
  readonly carries: ReadonlySet<string>;
}

/**
 * Runs several operations in one script call: ARGV[1] is how many, then for each its script's sha,
 * key count, arg count and args; KEYS are all their keys in order. Each operation is its own
 * script body (a function of KEYS and ARGV) under pcall, so one operation's error (e.g. WRONGTYPE)
 * is that operation's reply alone. Redis runs the batch atomically, in order, like a pipeline would.
 */
export function defineBatchScript(operations: readonly Script[]): BatchScript {
  const script = defineScript<readonly ScriptArg[], unknown[]>(`
local operations = {}
${operations.map(({ sha, body }) => `operations["${sha}"] = function(KEYS, ARGV)\n${body}\nend`).join("\n")}
local replies = {}
local nextKey, nextArg = 1, 2
for index = 1, tonumber(ARGV[1]) do
  local sha, keyCount, argCount = ARGV[nextArg], tonumber(ARGV[nextArg + 1]), tonumber(ARGV[nextArg + 2])
  nextArg = nextArg + 3
  local keys, args = {}, {}
  for i = 1, keyCount do keys[i] = KEYS[nextKey]; nextKey = nextKey + 1 end
  for i = 1, argCount do args[i] = ARGV[nextArg]; nextArg = nextArg + 1 end
  local ok, reply = pcall(operations[sha], keys, args)
  replies[index] = ok and reply or redis.error_reply(type(reply) == "table" and reply.err or tostring(reply))
end
return replies
`);
  return Object.freeze({ ...script, carries: new Set(operations.map(({ sha }) => sha)) });
}

/**
 * Sends `batch` to one node as a single call of `batchScript`. Each call is one command, one reply
 * to parse and one promise, whatever the batch size: under many concurrent callers that
 * per-command cost in the client, not Redis, is what limits throughput. Every command must be one
 * the script carries.
 * Calls `onAnswered` once the node answers the call; `cached` as for `evaluate`.
 */
export function sendBatch(
  driver: RedisDriver,
  batchScript: BatchScript,
  batch: readonly QueuedCommand[],
  cached: boolean,
  onAnswered: () => void,
): void {
  const keys: string[] = [];
  const argv: ScriptArg[] = [batch.length];
  for (const command of batch) {
    argv.push(command.script.sha, command.keys.length, command.args.length, ...command.args);
    keys.push(...command.keys);
  }
  evaluate(driver, batchScript, keys, argv, cached, onAnswered).then(
    (replies) =>
      batch.forEach((command, index) => {
        const reply: unknown = Array.isArray(replies) ? replies[index] : undefined;
        if (reply instanceof Error) command.reject(reply);
        else if (reply === undefined)
          command.reject(new RedlockError("The batch script returned no reply."));
        else command.resolve(reply);
      }),
    (error: unknown) => batch.forEach((command) => command.reject(error)),
  );
}
