/**
 * Walks of every key yield to the event loop: the timeline's re-read of the holds once the index is
 * whole again (50,000 locks here) runs in slices, changes to keys it has not reached are left to
 * it (no acquisition is invented for a lock held all along), and every hold is known once it ends.
 */
import { describe, expect, it } from "vitest";
import type { Transition } from "@/lib/api";
import { BTree } from "@/lib/server/locks/rows/btree";
import type { Reads } from "@/lib/server/locks/rows/live-index";
import { refoldInSlices } from "@/lib/server/locks/rows/refold";
import type { IndexedState } from "@/lib/server/locks/watch/store/node-store";
import { eachKeyInSlices, KeyWalk } from "@/lib/server/locks/rows/key-walk";
import { Timeline, type IndexView } from "@/lib/server/timeline/timeline";
import { indexedState } from "./fixtures/indexed-state";

const T0 = 1_700_000_000_000;
const LOCKS = 50_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function untilDone(walk: KeyWalk): Promise<number> {
  let turns = 0;
  for (; walk.active; turns += 1) await nextTurn();
  return turns;
}

const held = (value: string): IndexedState => indexedState({ value, expiresAtMs: T0 + 3_600_000 });

/** Three nodes holding LOCKS locks, each on every node; `reads` counts the index's reads. */
function fakeIndex() {
  const keys = new BTree<string, Reads>();
  for (let lock = 0; lock < LOCKS; lock += 1) {
    const state = held(lock.toString(16).padStart(40, "0"));
    keys.set(`lock:${lock}`, [state, state, state]);
  }
  const counter = { reads: 0 };
  const index: IndexView = {
    complete: true,
    quorumSize: 2,
    nodeIds: ["n1", "n2", "n3"],
    keysFrom: (low) => keys.keys(low),
    reads: (key) => {
      counter.reads += 1;
      return keys.get(key) ?? [null, null, null];
    },
  };
  return { index, keys, counter };
}

describe("a walk of every key in slices", () => {
  it("visits every key once, in order, over several turns of the event loop", async () => {
    const { keys } = fakeIndex();
    const walk = new KeyWalk();
    const visited: string[] = [];
    walk.start(
      (low) => keys.keys(low),
      (key) => {
        visited.push(key);
        // ≥ 5 µs of work per key: 50,000 keys take ≥ 250 ms, many 8 ms slices on any machine.
        const until = performance.now() + 0.005;
        while (performance.now() < until);
      },
    );
    expect(visited.length).toBeLessThan(LOCKS);
    expect(walk.reached(visited.at(-1)!)).toBe(true);
    expect(walk.reached("lock:~")).toBe(false);
    expect(await untilDone(walk)).toBeGreaterThan(1);
    expect(visited).toEqual([...keys.keys()]);
    expect(walk.reached("lock:~")).toBe(true);
  });

  it("stops an older walk when a new one starts", async () => {
    const { keys } = fakeIndex();
    const walk = new KeyWalk();
    let first = 0;
    let second = 0;
    // Each visit of the first walk takes ≥ 20 µs, so its first slice (8 ms) cannot cover 50,000 keys
    // however fast the machine: it is still running when the second starts.
    walk.start(
      (low) => keys.keys(low),
      () => {
        const until = performance.now() + 0.02;
        while (performance.now() < until);
        first += 1;
      },
    );
    walk.start(
      (low) => keys.keys(low),
      () => (second += 1),
    );
    await untilDone(walk);
    expect(second).toBe(LOCKS);
    expect(first).toBeLessThan(LOCKS);
  });
});

describe("the live index's re-fold when a node comes or goes", () => {
  function source(rows: number, unshown: number) {
    const rowKeys = new BTree<string, true>();
    for (let row = 0; row < rows; row += 1) rowKeys.set(`lock:${row}`, true);
    const nodeKeys = Array.from({ length: unshown }, (_, key) => `away:${key}`);
    const updates: string[] = [];
    return {
      updates,
      source: {
        rowKeys: (low?: string) => rowKeys.keys(low),
        hasRow: (key: string) => rowKeys.has(key),
        nodeKeys: () => [[...rowKeys.keys()], nodeKeys],
        update: (key: string) => {
          updates.push(key);
          for (let spin = 0; spin < 200; spin += 1) Math.sqrt(spin);
        },
      },
    };
  }

  it("updates every row and every key no row shows, over several turns, each once", async () => {
    const { source: rows, updates } = source(LOCKS, 10);
    const refold = refoldInSlices(rows, () => true);
    expect(updates.length).toBeLessThan(LOCKS); // the first slice only, before the first yield
    await refold;
    expect(updates.length).toBe(LOCKS + 10);
    expect(new Set(updates).size).toBe(LOCKS + 10);
  });

  it("stops when a newer re-fold takes over", async () => {
    const { source: rows, updates } = source(LOCKS, 0);
    let current = true;
    const refold = refoldInSlices(rows, () => current);
    current = false;
    await refold;
    expect(updates.length).toBeLessThan(LOCKS);
  });
});

describe("every key in slices, awaited", () => {
  it("resolves after the last key, and rejects (never throws uncaught) when a visit fails in a later slice", async () => {
    const { keys } = fakeIndex();
    let visited = 0;
    await eachKeyInSlices(
      (low) => keys.keys(low),
      () => (visited += 1),
    );
    expect(visited).toBe(LOCKS);
    const failing = eachKeyInSlices(
      (low) => keys.keys(low),
      (key) => {
        if (key === `lock:${LOCKS - 1}`) throw new Error("unreadable");
        for (let spin = 0; spin < 200; spin += 1) Math.sqrt(spin);
      },
    );
    await expect(failing).rejects.toThrow("unreadable");
  });
});

describe("the timeline's re-read of the holds once the index is whole", () => {
  it("yields, invents no acquisition for a lock it has not reached, and knows every hold at the end", async () => {
    const { index, keys, counter } = fakeIndex();
    const transitions: Transition[] = [];
    const timeline = new Timeline(index, {
      capacity: 1_000,
      readSession: async () => [],
      onTransition: (transition) => transitions.push(transition),
    });
    timeline.tick(T0); // the index is whole: the holds are re-read
    expect(counter.reads).toBeLessThan(LOCKS); // the rest waits for later turns
    const last = keys.maxKey()!; // the last the walk reaches
    // A node's change to a lock the walk has not reached: left to the walk, nothing emitted.
    timeline.observe(last, keys.get(last)!, "held", 0, undefined, T0);
    await nextTurn();
    while (counter.reads < LOCKS) await nextTurn();
    await nextTurn();
    expect(transitions).toEqual([]);
    // Every hold is known: a release of the last lock ends its hold.
    const gone: Reads = [null, null, null];
    keys.set(last, gone);
    timeline.observe(last, gone, null, 0, "deleted", T0 + 1_000);
    expect(transitions.map((transition) => [transition.kind, transition.resource])).toEqual([
      ["released", last],
    ]);
  });
});
