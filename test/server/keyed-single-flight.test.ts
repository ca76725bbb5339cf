/**
 * keyedSingleFlight (lib/server/single-flight.ts), what every read route shares its results with:
 * one load per key among concurrent callers, reused for the max age, never across keys, failures
 * not kept, and a bound on the keys remembered.
 */
import { describe, expect, it } from "vitest";
import { keyedSingleFlight } from "@/lib/server/single-flight";
import { sleep } from "../masters";

function counting() {
  const loads: string[] = [];
  const load = (key: string) => async () => {
    loads.push(key);
    await sleep(5);
    return `${key}@${loads.length}`;
  };
  return { loads, load };
}

describe("keyedSingleFlight", () => {
  it("shares one load per key among concurrent callers, never across keys", async () => {
    const shared = keyedSingleFlight<string>(0);
    const { loads, load } = counting();
    const results = await Promise.all([
      shared("a", load("a")),
      shared("a", load("a")),
      shared("b", load("b")),
      shared("a", load("a")),
    ]);
    expect(loads.sort()).toEqual(["a", "b"]);
    expect(results[0]).toBe(results[1]);
    expect(results[2]).toMatch(/^b@/);
  });

  it("reuses a result for the max age, then loads again; maxAgeMs 0 reuses nothing once settled", async () => {
    const kept = keyedSingleFlight<string>(200);
    const { loads, load } = counting();
    await kept("a", load("a"));
    await kept("a", load("a"));
    expect(loads).toEqual(["a"]);
    await sleep(250);
    await kept("a", load("a"));
    expect(loads).toEqual(["a", "a"]);

    const fresh = keyedSingleFlight<string>(0);
    const second = counting();
    await fresh("a", second.load("a"));
    await fresh("a", second.load("a"));
    expect(second.loads).toEqual(["a", "a"]);
  });

  it("keeps no failure: the next caller loads again", async () => {
    const shared = keyedSingleFlight<string>(10_000);
    await expect(shared("a", () => Promise.reject(new Error("node down")))).rejects.toThrow();
    await expect(shared("a", () => Promise.resolve("up"))).resolves.toBe("up");
  });

  it("remembers at most maxKeys keys: the oldest goes first", async () => {
    const shared = keyedSingleFlight<string>(10_000, 2);
    const { loads, load } = counting();
    await shared("a", load("a"));
    await shared("b", load("b"));
    await shared("c", load("c"));
    await shared("b", load("b"));
    await shared("a", load("a"));
    expect(loads).toEqual(["a", "b", "c", "a"]);
  });
});
