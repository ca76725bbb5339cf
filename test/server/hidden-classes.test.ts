// test-group: alone
/**
 * What the index and the timeline keep per lock shares one hidden class per kind. An object copied
 * by a spread and then added to (`{ ...facts, state }`) gets a hidden class of its own in V8: a map,
 * its descriptors and a property array, ~250 bytes each. At 100k locks of this library (owners in
 * their values) that was ~50 MB of the console's heap. V8's own check (%HaveSameMap) runs in a child
 * Node started with --allow-natives-syntax; no Redis.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const FIXTURE = fileURLToPath(new URL("./fixtures/hidden-classes.ts", import.meta.url));

describe("objects kept per lock", () => {
  it("share one hidden class per kind (owners, row entries)", () => {
    const output = execFileSync(
      process.execPath,
      ["--allow-natives-syntax", "--import", "tsx", FIXTURE],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(JSON.parse(output)).toEqual({
      "owner of an rl1: value": true,
      "owner of a 1.x owner entry": true,
      "owner of a cut value": true,
      "row entry with facts": true,
    });
  });
});
