import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { Command as IoredisCommand, Redis } from "ioredis";
import { usesOwnEval, type IoredisClient } from "./client-adapter";

/** A script key: a string, or a Buffer for binary key names (the console reads any key). */
export type ScriptKey = string | Buffer;
export type ScriptArg = string | number | Buffer;

/**
 * A Lua script with its sha1, computed once. `Args` types its ARGV and `Reply` what it returns; the
 * KEYS are the caller's (a lock has as many as it has resources).
 */
export interface Script<Args extends readonly ScriptArg[] = readonly ScriptArg[], Reply = unknown> {
  readonly body: string;
  readonly sha: string;
  /**
   * Runs it on one client: EVALSHA, then EVAL once if the node lost its script cache. `sendBody`
   * sends EVAL at once, for a call that must run as queued even after its caller stopped waiting
   * (a paused node answers NOSCRIPT when it resumes, and the retry would come too late).
   */
  run(
    client: IoredisClient,
    keys: readonly ScriptKey[],
    args: Args,
    options?: { readonly sendBody?: boolean },
  ): Promise<Reply>;
}

const sha1 = (body: string) => createHash("sha1").update(body).digest("hex");

/** Every Lua script of the library and the console is made here, so each runs the same way. */
export function defineScript<Args extends readonly ScriptArg[], Reply>(
  body: string,
): Script<Args, Reply> {
  const script: Script<Args, Reply> = {
    body,
    sha: sha1(body),
    run: (client, keys, args, options) =>
      evaluate(client, script, keys, args, !options?.sendBody) as Promise<Reply>,
  };
  return Object.freeze(script);
}

const isNoScript = (error: unknown) =>
  error instanceof Error && error.message.startsWith("NOSCRIPT");

let Command: typeof IoredisCommand | undefined;

/**
 * ioredis's Command class, required on first use: only an ioredis client needs it, and a
 * node-redis application need not have ioredis installed at all.
 */
const commandClass = (): typeof IoredisCommand =>
  (Command ??= (createRequire(import.meta.url)("ioredis") as { Command: typeof IoredisCommand })
    .Command);

/**
 * EVALSHA or EVAL as one ioredis Command sent straight to the connection (what `client.evalsha`
 * does, minus its argument juggling). With auto-pipelining on, ioredis would defer each command
 * again by an event-loop turn and build a Pipeline per tick (~1.5x the CPU per operation at 16
 * callers): node.ts batches already. A Cluster (routed by key) and node-redis keep the client's own
 * method.
 */
function send(
  client: IoredisClient,
  command: "evalsha" | "eval",
  shaOrBody: string,
  keys: readonly ScriptKey[],
  args: readonly ScriptArg[],
): Promise<unknown> {
  if (usesOwnEval(client)) return client[command](shaOrBody, keys.length, ...keys, ...args);
  const options = { replyEncoding: "utf8" as const, keyPrefix: client.options.keyPrefix };
  return (client as Redis).sendCommand(
    new (commandClass())(command, [shaOrBody, keys.length, ...keys, ...args], options),
  ) as Promise<unknown>;
}

/**
 * The one EVALSHA → NOSCRIPT → EVAL fallback. `cached: false` says the connection has not been sent
 * this script yet (node.ts keeps count): EVAL goes at once, so no later command on the connection can
 * overtake a retried one. (A retry after NOSCRIPT leaves the connection's order: a release sent
 * meanwhile would run before its own acquire and leave that acquire's key behind.) `onAnswered` runs
 * when the node answers the first command, before any retry.
 */
export function evaluate(
  client: IoredisClient,
  script: { readonly sha: string; readonly body: string },
  keys: readonly ScriptKey[],
  args: readonly ScriptArg[],
  cached = true,
  onAnswered?: () => void,
): Promise<unknown> {
  if (!cached) {
    const sent = send(client, "eval", script.body, keys, args);
    if (onAnswered) void sent.then(onAnswered, onAnswered);
    return sent;
  }
  return send(client, "evalsha", script.sha, keys, args).then(
    (reply) => {
      onAnswered?.();
      return reply;
    },
    (error: unknown) => {
      onAnswered?.();
      if (!isNoScript(error)) throw error;
      return send(client, "eval", script.body, keys, args);
    },
  );
}
