/** The node store (the informer's indexer): states, the expiry wheel, generations, the key cap. */
import { describe, expect, it } from "vitest";
import type { NodeKeyState } from "@/lib/server/locks/read/key-state";
import {
  NodeStore,
  type IndexedState,
  type RemovalCause,
} from "@/lib/server/locks/watch/store/node-store";

const T0 = 1_700_000_000_000;

const lock = (value: string, pttlMs: number): NodeKeyState => ({
  value,
  pttlMs,
  format: "string",
  holdCount: null,
});

function storeOf(maxKeys = 100) {
  const changes: Array<[string, string | null, RemovalCause | undefined]> = [];
  const store = new NodeStore({
    maxKeys,
    shared: (name, value) => ({ name, value }),
    onChange: (key: string, state: IndexedState | null, cause?: RemovalCause) =>
      changes.push([key, state?.value ?? null, cause]),
    nowMs: T0,
  });
  return { store, changes };
}

describe("the node store", () => {
  it("holds what a read found, with its expiry on the console's clock", () => {
    const { store, changes } = storeOf();
    store.put("a", lock("v1", 5_000), T0 + 100);
    expect(store.get("a")?.expiresAtMs).toBe(T0 + 5_100);
    store.put("b", lock("v2", -1), T0);
    expect(store.get("b")?.expiresAtMs).toBe(-1);
    expect(changes).toEqual([
      ["a", "v1", undefined],
      ["b", "v2", undefined],
    ]);
  });

  it("drops a state when its TTL runs out, as expired, and never one without a TTL", () => {
    const { store, changes } = storeOf();
    store.put("a", lock("v1", 1_050), T0);
    store.put("forever", lock("v2", -1), T0);
    changes.length = 0;
    store.sweep(T0 + 1_000);
    expect(store.get("a")).toBeDefined();
    store.sweep(T0 + 1_049);
    expect(store.get("a")).toBeDefined(); // later in the bucket being swept: looked at again
    store.sweep(T0 + 1_100);
    expect(store.get("a")).toBeUndefined();
    store.sweep(T0 + 1_000_000);
    expect(changes).toEqual([["a", null, "expired"]]);
    expect(store.get("forever")).toBeDefined();
  });

  it("keeps an extended state past its first expiry", () => {
    const { store, changes } = storeOf();
    store.put("a", lock("v1", 1_000), T0);
    store.put("a", lock("v1", 1_000), T0 + 900); // extended: now expires at T0 + 1,900
    store.sweep(T0 + 1_500);
    expect(store.get("a")).toBeDefined();
    store.sweep(T0 + 2_000);
    expect(store.get("a")).toBeUndefined();
    expect(changes.at(-1)).toEqual(["a", null, "expired"]);
  });

  it("tells of a removal only for a key it held, with its cause", () => {
    const { store, changes } = storeOf();
    store.remove("never-held", "deleted");
    store.put("a", lock("v1", 5_000), T0);
    store.remove("a", "evicted");
    expect(changes).toEqual([
      ["a", "v1", undefined],
      ["a", null, "evicted"],
    ]);
    expect(store.size).toBe(0);
  });

  it("leaves new keys out beyond maxKeys, and says so", () => {
    const { store } = storeOf(2);
    store.put("a", lock("v1", 5_000), T0);
    store.put("b", lock("v1", 5_000), T0);
    expect(store.truncated).toBe(false);
    store.put("c", lock("v1", 5_000), T0);
    expect(store.get("c")).toBeUndefined();
    expect(store.truncated).toBe(true);
    store.put("a", lock("v2", 5_000), T0); // a key already held is still updated
    expect(store.get("a")?.value).toBe("v2");
  });

  it("stays truncated until a listing ends that left nothing out (issue 32 row 9)", () => {
    const { store } = storeOf(2);
    store.put("a", lock("v1", 5_000), T0);
    store.put("b", lock("v1", 5_000), T0);
    store.put("c", lock("v1", 5_000), T0);
    store.beginGeneration();
    store.put("a", lock("v1", 5_000), T0);
    store.put("b", lock("v1", 5_000), T0);
    store.put("c", lock("v1", 5_000), T0); // still left out: the listing does not heal it
    store.endGeneration();
    expect(store.truncated).toBe(true);
    store.remove("b", "deleted");
    expect(store.truncated).toBe(true); // room again, but "c" was never read: still not whole
    store.beginGeneration();
    store.put("a", lock("v1", 5_000), T0);
    store.put("c", lock("v1", 5_000), T0);
    store.endGeneration();
    expect(store.truncated).toBe(false);
  });

  it("names the keys no read stamped since a listing began", () => {
    const { store } = storeOf();
    store.put("a", lock("v1", 5_000), T0);
    store.put("b", lock("v1", 5_000), T0);
    store.beginGeneration();
    store.put("b", lock("v1", 5_000), T0);
    expect(store.unseen()).toEqual(["a"]);
  });

  it("stores the instances `shared` returns, so nodes holding one lock share its strings", () => {
    const name = "lock:shared";
    const value = "owner-value";
    const store = new NodeStore({
      maxKeys: 10,
      shared: () => ({ name, value }),
      onChange: () => {},
      nowMs: T0,
    });
    store.put("lock:copy", lock("copy-value", 5_000), T0);
    expect([...store.keys()][0]).toBe(name);
    expect(store.get(name)?.value).toBe(value);
  });

  it("holds one wheel slot per key, however often the key is extended, shortened or re-created", () => {
    const { store, changes } = storeOf();
    for (let extension = 1; extension <= 1_000; extension += 1)
      store.put("a", lock("v1", 1_000), T0 + extension * 100); // extended every 100 ms
    expect(store.slots).toBe(1);
    store.put("a", lock("v1", 50), T0 + 100_000); // shortened: its slot moves earlier
    expect(store.slots).toBe(1);
    for (let round = 0; round < 100; round += 1) {
      store.put("b", lock(`v${round}`, 30_000), T0 + 100_000 + round * 10);
      store.remove("b", "deleted"); // a lock taken and released: no slot left behind
    }
    expect(store.slots).toBe(1);
    store.put("forever", lock("v2", -1), T0);
    expect(store.slots).toBe(1);
    changes.length = 0;
    store.sweep(T0 + 100_049);
    expect(store.get("a")).toBeDefined();
    store.sweep(T0 + 100_050);
    expect(store.get("a")).toBeUndefined();
    expect(changes).toEqual([["a", null, "expired"]]);
    expect(store.slots).toBe(0);
  });

  it("expires a key whose expiry bucket was already swept when it was stored", () => {
    const { store, changes } = storeOf();
    store.sweep(T0 + 10_000);
    store.put("late", lock("v1", 100), T0 + 5_000); // read long ago: expired at T0 + 5,100
    expect(store.slots).toBe(1);
    changes.length = 0;
    store.sweep(T0 + 10_100);
    expect(changes).toEqual([["late", null, "expired"]]);
    expect(store.slots).toBe(0);
  });

  it("on a polled node drops nothing: it names the keys due from 300 ms before expiry, to be read again", () => {
    const { store, changes } = storeOf();
    store.put("a", lock("v1", 2_000), T0);
    changes.length = 0;
    const named: string[][] = [];
    store.sweep(T0 + 1_600, (names) => named.push(names));
    expect(named).toEqual([]);
    store.sweep(T0 + 1_750, (names) => named.push(names));
    expect(named).toEqual([["a"]]);
    // The read found it extended (the library extends 500 ms before expiry): back on the wheel, later.
    store.put("a", lock("v1", 2_000), T0 + 1_760);
    store.sweep(T0 + 2_500, (names) => named.push(names));
    expect(named).toHaveLength(1);
    expect(store.get("a")?.expiresAtMs).toBe(T0 + 3_760);
    // Still due and unread: the state stays as last read, never "expired" by the wheel alone.
    store.sweep(T0 + 3_800, (names) => named.push(names));
    expect(named.at(-1)).toEqual(["a"]);
    expect(store.get("a")).toBeDefined();
    expect(changes.filter(([, value]) => value === null)).toEqual([]);
  });

  it("on a polled node a key read again still counting down keeps one slot and is named at every sweep", () => {
    const { store, changes } = storeOf();
    store.put("a", lock("v1", 1_000), T0);
    const named: string[][] = [];
    store.sweep(T0 + 800, (names) => named.push(names));
    expect(named).toEqual([["a"]]);
    expect(store.slots).toBe(0); // off the wheel while its confirming read is under way
    store.put("a", lock("v1", 190), T0 + 810); // the read: same expiry, still counting down
    expect(store.slots).toBe(1);
    store.sweep(T0 + 900, (names) => named.push(names));
    expect(named).toEqual([["a"], ["a"]]);
    store.put("a", lock("v1", 90), T0 + 910);
    store.put("a", lock("v1", 80), T0 + 920); // a second read in the same stretch: still one slot
    expect(store.slots).toBe(1);
    store.remove("a", "expired"); // a read found it gone
    expect(store.slots).toBe(0);
    expect(changes.at(-1)).toEqual(["a", null, "expired"]);
  });
});
