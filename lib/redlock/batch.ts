import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { Command as IoredisCommand, Redis } from "ioredis";
import { ACQUIRE_SCRIPT, EXTEND_SCRIPT, FENCE_SCRIPT, RELEASE_SCRIPT } from "./lua";
import { usesOwnEval, type IoredisClient as Client } from "./client-adapter";
import { RedlockError } from "./errors";

/** A script command waiting for its node's next batch. */
export interface QueuedCommand {
  readonly target: { readonly sha: string; readonly body: string };
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  resolve(reply: unknown): void;
  reject(error: unknown): void;
}

const sha1 = (body: string) => createHash("sha1").update(body).digest("hex");
const OPERATIONS = [ACQUIRE_SCRIPT, EXTEND_SCRIPT, RELEASE_SCRIPT, FENCE_SCRIPT];
const BATCHABLE = new Set(OPERATIONS.map(sha1));

/**
 * Runs several operations in one script call: ARGV[1] is how many, then for each its script's sha,
 * key count, arg count and args; KEYS are all their keys in order. Each operation is its own
 * script body (a function of KEYS and ARGV) under pcall, so one operation's error (e.g. WRONGTYPE)
 * is that operation's reply alone. Redis runs the batch atomically, in order, like a pipeline would.
 */
export const BATCH_SCRIPT = `
local operations = {}
${OPERATIONS.map((body) => `operations["${sha1(body)}"] = function(KEYS, ARGV)\n${body}\nend`).join("\n")}
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
`;
const BATCH_SHA = sha1(BATCH_SCRIPT);

let Command: typeof IoredisCommand | undefined;

/**
 * ioredis's Command class, required on first use: only an ioredis client with auto-pipelining needs
 * it, and a node-redis application need not have ioredis installed at all.
 */
const commandClass = (): typeof IoredisCommand =>
  (Command ??= (createRequire(import.meta.url)("ioredis") as { Command: typeof IoredisCommand })
    .Command);

export const isNoScript = (error: unknown) =>
  error instanceof Error && error.message.startsWith("NOSCRIPT");

/**
 * EVALSHA or EVAL as one ioredis Command sent straight to the connection (what `client.evalsha`
 * does, minus its argument juggling). With auto-pipelining on, ioredis would defer each command
 * again by an event-loop turn and build a Pipeline per tick (~1.5x the CPU per operation at 16
 * callers): node.ts batches already. A Cluster (routed by key) and node-redis keep the client's own
 * method.
 */
export function evalScript(
  client: Client,
  command: "evalsha" | "eval",
  shaOrBody: string,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  if (usesOwnEval(client)) return client[command](shaOrBody, keys.length, ...keys, ...args);
  const options = { replyEncoding: "utf8" as const, keyPrefix: client.options.keyPrefix };
  return (client as Redis).sendCommand(
    new (commandClass())(command, [shaOrBody, keys.length, ...keys, ...args], options),
  ) as Promise<unknown>;
}

/**
 * One script call on its own: EVALSHA, then EVAL once if the node lost its script cache (after a
 * restart). `onAnswered` runs when the node answers the EVALSHA. One promise on top of ioredis's,
 * whatever happens: this is the whole cost of the single-caller path.
 */
export function evaluateOnce(
  client: Client,
  target: { readonly sha: string; readonly body: string },
  keys: readonly string[],
  args: readonly (string | number)[],
  onAnswered?: () => void,
): Promise<unknown> {
  return evalScript(client, "evalsha", target.sha, keys, args).then(
    (reply) => {
      onAnswered?.();
      return reply;
    },
    (error: unknown) => {
      onAnswered?.();
      if (!isNoScript(error)) throw error;
      return evalScript(client, "eval", target.body, keys, args);
    },
  );
}

/**
 * Sends `batch` to one node as a single EVALSHA of the batch script (EVAL once if the node lost its
 * script cache). Each command is one ioredis Command, one reply to parse and one promise, whatever
 * the batch size: at 64 concurrent callers that per-command cost, not Redis, was the bottleneck.
 * Returns false (sending nothing) if a command is not one of the library's scripts; else calls
 * `onAnswered` once the node answers the call.
 */
export function sendBatch(
  client: Client,
  batch: readonly QueuedCommand[],
  onAnswered: () => void,
): boolean {
  if (!batch.every((command) => BATCHABLE.has(command.target.sha))) return false;
  const keys: string[] = [];
  const argv: (string | number)[] = [batch.length];
  for (const command of batch) {
    argv.push(command.target.sha, command.keys.length, command.args.length, ...command.args);
    keys.push(...command.keys);
  }
  const settle = (replies: unknown) =>
    batch.forEach((command, index) => {
      const reply: unknown = Array.isArray(replies) ? replies[index] : undefined;
      if (reply instanceof Error) command.reject(reply);
      else if (reply === undefined)
        command.reject(new RedlockError("The batch script returned no reply."));
      else command.resolve(reply);
    });
  const fail = (error: unknown) => batch.forEach((command) => command.reject(error));
  evalScript(client, "evalsha", BATCH_SHA, keys, argv).then(
    (replies) => {
      onAnswered();
      settle(replies);
    },
    (error: unknown) => {
      onAnswered();
      if (!isNoScript(error)) return fail(error);
      evalScript(client, "eval", BATCH_SCRIPT, keys, argv).then(settle, fail);
    },
  );
  return true;
}
