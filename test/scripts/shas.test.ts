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
import { RELEASE, RELEASE_ONE, WAKE_NEXT } from "../../lib/redlock/release";
import { GUARDED_ACQUIRE, GUARDED_EXTEND } from "../../lib/redlock/guard";
import { PROBE } from "../../lib/redlock/slots";
import { WAITERS, WAITERS_REMOVE_ONE } from "../../lib/redlock/waiters";
import { FORCE_RELEASE_SCRIPT } from "@/lib/server/actions/force-release-lua";
import { REVOKE_SCRIPT } from "@/lib/server/actions/revoke";
import { READ_KEYS_ON_SHARD_SCRIPT, READ_KEYS_SCRIPT } from "@/lib/server/locks/read/read-node";
import { READ_ONE_SCRIPT } from "@/lib/server/locks/detail/read-one";
import { APPEND_SCRIPT, LEASE_SCRIPT, RESIGN_SCRIPT } from "@/lib/server/replicas/lua";
import { AUDIT_APPEND_SCRIPT } from "@/lib/server/audit/stream-append";
import { usePrivateClient } from "../masters";

const SCRIPTS = {
  ACQUIRE,
  ACQUIRE_ONE,
  EXTEND,
  RELEASE,
  RELEASE_ONE,
  WAKE_NEXT,
  FENCE,
  WAITERS,
  WAITERS_REMOVE_ONE,
  INSPECT,
  LOCK_BATCH_SCRIPT,
  READ_KEYS_SCRIPT,
  READ_KEYS_ON_SHARD_SCRIPT,
  READ_ONE_SCRIPT,
  FORCE_RELEASE_SCRIPT,
  REVOKE_SCRIPT,
  GUARDED_ACQUIRE,
  GUARDED_EXTEND,
  PROBE,
  APPEND_SCRIPT,
  LEASE_SCRIPT,
  RESIGN_SCRIPT,
  AUDIT_APPEND_SCRIPT,
};

// Pinned so that any edit of a script's Lua (a protocol change for every node) fails until made on purpose.
const PINNED_SHAS: Record<keyof typeof SCRIPTS, string> = {
  ACQUIRE: "33d7e52c3509c85b727ddad01ebfe1292c2aaefc",
  ACQUIRE_ONE: "3ac027b7480db8947f4a60fa958fdf7d2d185b65",
  EXTEND: "60a9d5fbafcabf5a12da26295de8f59605ba431e",
  RELEASE: "1b983d7113dffa0ad968a7a54f9923390ebfed91",
  RELEASE_ONE: "80a3b4b0bcc2c1985675d81ccff933c12ea15d35",
  WAKE_NEXT: "69bbb00f1411fe930262f34510dde111bdd87799",
  FENCE: "a75b9a87c55e754077d165f4d0226356d2b0cad9",
  WAITERS: "119c8ed2864a0110c780285229f7c4a561d3e674",
  WAITERS_REMOVE_ONE: "85029a715c2f7f83c95eba6507f3537d4d454a8a",
  INSPECT: "571109e182970779ffed17136abbf49b62dbfd5e",
  LOCK_BATCH_SCRIPT: "141449f6d9b488b8db193ecb321e4b3908204674",
  READ_KEYS_SCRIPT: "7e38457de73f07fea94c3c47ecc649170a6bd3d4",
  READ_KEYS_ON_SHARD_SCRIPT: "e424f543d3fc7379b58e679ed00ad9b1e39bcc5a",
  READ_ONE_SCRIPT: "514f7c79ace01e49981b13ea14cf0fdd987b0f62",
  FORCE_RELEASE_SCRIPT: "49d6df80a02bb3a791de17837242cb4daaffaffa",
  REVOKE_SCRIPT: "ade192b0fcea6ba372da6522848559c8409b6616",
  GUARDED_ACQUIRE: "e153be27b58c7be76a995117429ce7f5971b1573",
  GUARDED_EXTEND: "17200b39a44c27f9d4d2469cc81949a0df9c823e",
  PROBE: "9b270cf84b91512d3a14008c08cf4595717b756c",
  APPEND_SCRIPT: "dddd751e30ee6b65088844fa13831e472eca225c",
  LEASE_SCRIPT: "0608f689d0a585221ca161860f9dcb556d266aa6",
  RESIGN_SCRIPT: "c0fe86dca9a7825a3e95860568351409cafd1294",
  AUDIT_APPEND_SCRIPT: "f35f63daf1c928c185179aae14a78a91efc63688",
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
      ["check", "", ""],
    );
    expect(reply).toEqual(["absent", ""]);
    expect(await client().script("EXISTS", FORCE_RELEASE_SCRIPT.sha)).toEqual([1]);
  });
});
