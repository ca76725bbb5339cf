import { createHash } from "node:crypto";
import {
  driverFor,
  type Client,
  type CommandArg,
  type CommandKey,
  type RedisDriver,
} from "./driver";

/** A script key: a string, or a Buffer for binary key names (the console reads any key). */
export type ScriptKey = CommandKey;
export type ScriptArg = CommandArg;

/**
 * A Lua script with its sha1, computed once. `Args` types its ARGV and `Reply` what it returns; the
 * KEYS are the caller's (a lock has as many as it has resources).
 */
export interface Script<Args extends readonly ScriptArg[] = readonly ScriptArg[], Reply = unknown> {
  readonly body: string;
  readonly sha: string;
  /** For a script that is one plain command: that command, sent in its place (see PlainCommand). */
  readonly command?: PlainCommand<Args, Reply>;
  /**
   * Runs it on one client: its plain command if it has one, else EVALSHA, then EVAL once if the
   * node lost its script cache. `sendBody` sends EVAL at once, for a call that must run as queued
   * even after its caller stopped waiting (a paused node answers NOSCRIPT when it resumes, and the
   * retry would come too late).
   */
  run(
    client: Client,
    keys: readonly ScriptKey[],
    args: Args,
    options?: { readonly sendBody?: boolean },
  ): Promise<Reply>;
}

const sha1 = (body: string) => createHash("sha1").update(body).digest("hex");

/**
 * The one Redis command a script's body amounts to (e.g. SET NX PX), with its arguments and the reply
 * mapped to the script's. Sent on its own, it spares Redis the Lua call and counts as one command,
 * not two, on every node, for every lock a single caller takes. In a batch (batch.ts) the body
 * runs instead. test/redlock/single-resource-scripts.test.ts runs both on the
 * same states and compares.
 */
export interface PlainCommand<Args extends readonly ScriptArg[], Reply> {
  /** The command's name; its first argument is its only key. */
  readonly name: string;
  argsOf(keys: readonly ScriptKey[], args: Args): ScriptArg[];
  replyOf(reply: unknown): Reply;
}

/** Every Lua script of the library and the console is made here, so each runs the same way. */
export function defineScript<Args extends readonly ScriptArg[], Reply>(
  body: string,
  command?: PlainCommand<Args, Reply>,
): Script<Args, Reply> {
  const script: Script<Args, Reply> = {
    body,
    sha: sha1(body),
    ...(command && { command }),
    run: (client, keys, args, options) =>
      evaluate(driverFor(client), script, keys, args, !options?.sendBody) as Promise<Reply>,
  };
  return Object.freeze(script);
}

const isNoScript = (error: unknown) =>
  error instanceof Error && error.message.startsWith("NOSCRIPT");

/**
 * The one EVALSHA → NOSCRIPT → EVAL fallback (a script with a plain command sends that instead:
 * nothing to cache, nothing to retry). `cached: false` says the connection has not been sent this
 * script yet (node.ts keeps count): EVAL goes at once, so no later command on the connection can
 * overtake a retried one. (A retry after NOSCRIPT leaves the connection's order: a release sent
 * meanwhile would run before its own acquire and leave that acquire's key behind.) `onAnswered` runs
 * when the node answers the first command, before any retry.
 */
export function evaluate(
  driver: RedisDriver,
  script: Pick<Script, "sha" | "body" | "command">,
  keys: readonly ScriptKey[],
  args: readonly ScriptArg[],
  cached = true,
  onAnswered?: () => void,
): Promise<unknown> {
  if (script.command || !cached) {
    const sent = script.command
      ? driver
          .command(script.command.name, script.command.argsOf(keys, args))
          .then(script.command.replyOf)
      : driver.eval(script.body, keys, args);
    if (onAnswered) void sent.then(onAnswered, onAnswered);
    return sent;
  }
  return driver.evalsha(script.sha, keys, args).then(
    (reply) => {
      onAnswered?.();
      return reply;
    },
    (error: unknown) => {
      onAnswered?.();
      if (!isNoScript(error)) throw error;
      return driver.eval(script.body, keys, args);
    },
  );
}
