/**
 * Every Lua script of the library and the console, loaded into a real Redis: the sha EVALSHA sends
 * is the one Redis computes, and it equals the pinned one. One private master (SCRIPT FLUSH).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ACQUIRE, ACQUIRE_ONE } from "../../lib/redlock/acquire";
import { EXTEND } from "../../lib/redlock/extend";
import { FENCE } from "../../lib/redlock/fencing";
import { INSPECT } from "../../lib/redlock/inspect";
import { LOCK_BATCH_SCRIPT } from "../../lib/redlock/redlock";
import { RELEASE, RELEASE_ONE } from "../../lib/redlock/release";
import { WAITERS } from "../../lib/redlock/waiters";
import { FORCE_RELEASE_SCRIPT } from "@/lib/server/actions/force-release-node";
import { READ_KEYS_SCRIPT } from "@/lib/server/snapshot/read-node";
import { READ_ONE_SCRIPT } from "@/lib/server/snapshot/read-one";
import { usePrivateClient } from "../masters";

const SCRIPTS = {
  ACQUIRE,
  ACQUIRE_ONE,
  EXTEND,
  RELEASE,
  RELEASE_ONE,
  FENCE,
  WAITERS,
  INSPECT,
  LOCK_BATCH_SCRIPT,
  READ_KEYS_SCRIPT,
  READ_ONE_SCRIPT,
  FORCE_RELEASE_SCRIPT,
};

// Pinned so that any edit of a script's Lua (a protocol change for every node) fails until made on purpose.
const PINNED_SHAS: Record<keyof typeof SCRIPTS, string> = {
  ACQUIRE: "2cf869fdab4122228e516bc65e5cf861e920b899",
  ACQUIRE_ONE: "befa6f5d404259d7ccf5230105050d8e8064a8c5",
  EXTEND: "5d28b9917f80bf56f770f9add55955a973420735",
  RELEASE: "3d8778555d787696996d196f485201409bf0f569",
  RELEASE_ONE: "44ca29bc65946ab39a309f45317723663447fe0b",
  FENCE: "a75b9a87c55e754077d165f4d0226356d2b0cad9",
  WAITERS: "a90fac9c5bfebf7849b748ea8574e03b59ae20ce",
  INSPECT: "0169bed5834ea4e250c943ed611c6dc59a8c40de",
  LOCK_BATCH_SCRIPT: "7a7c406b6b0349a3c8fe15ac69349d3cd323bfe6",
  READ_KEYS_SCRIPT: "d4efa6f9aa3c190b845ea2fa207b28ff4f1232b6",
  READ_ONE_SCRIPT: "995483fbbd56a8237fcb7d0ba9c17be779209593",
  FORCE_RELEASE_SCRIPT: "f8775512a29c15e9c46283faf1ef2ae44918ee75",
};

/** Names of the scripts defined at the top level of a source file under lib/ or app/. */
function definedScriptNames(): string[] {
  const root = path.resolve(import.meta.dirname, "../..");
  return ["lib", "app"].flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".test.ts"))
      .flatMap((file) => [
        ...readFileSync(path.join(root, dir, file), "utf8").matchAll(
          /^(?:export )?const (\w+) = define(?:Batch)?Script\b/gm,
        ),
      ])
      .map((match) => match[1]!),
  );
}

const client = usePrivateClient();

describe("script shas", () => {
  it("lists every script the library and the console define", () => {
    expect(definedScriptNames().sort()).toEqual(Object.keys(SCRIPTS).sort());
  });

  it.each(Object.entries(SCRIPTS))("%s loads under its own sha", async (_name, script) => {
    expect(await client().script("LOAD", script.body)).toBe(script.sha);
  });

  it.each(Object.entries(SCRIPTS))("%s has its pinned sha", (name, script) => {
    expect(script.sha).toBe(PINNED_SHAS[name as keyof typeof SCRIPTS]);
  });

  it("runs a script the node no longer has, by EVAL after NOSCRIPT", async () => {
    await client().script("FLUSH");
    expect(await client().script("EXISTS", FORCE_RELEASE_SCRIPT.sha)).toEqual([0]);
    const reply = await FORCE_RELEASE_SCRIPT.run(
      client(),
      ["shas-test:absent", "redlock:owner:shas-test:absent"],
      ["check", ""],
    );
    expect(reply).toEqual(["absent", ""]);
    expect(await client().script("EXISTS", FORCE_RELEASE_SCRIPT.sha)).toEqual([1]);
  });
});
