/** The change queue (the informer's DeltaFIFO): coalescing, chunks, event memory, overflow. */
import { describe, expect, it } from "vitest";
import {
  briefHolds,
  ChangeQueue,
  READ_CHUNK_KEYS,
} from "@/lib/server/locks/watch/store/change-queue";
import { FakeClock } from "./fake-clock";

const key = (name: string) => Buffer.from(name, "latin1");

function queueOf(options: { maxPendingKeys?: number; failReads?: boolean } = {}) {
  const clock = new FakeClock();
  const reads: string[][] = [];
  const dropped: string[] = [];
  const queue = new ChangeQueue({
    clock,
    signal: new AbortController().signal,
    read: async (keys) => {
      reads.push(keys.map((k) => k.toString("latin1")));
      if (options.failReads) throw new Error("connection closed");
    },
    onDropped: (reason) => dropped.push(reason),
    maxPendingKeys: options.maxPendingKeys,
  });
  return { clock, queue, reads, dropped };
}

describe("the change queue", () => {
  it("reads a burst once per key, after a short gathering", async () => {
    const { clock, queue, reads } = queueOf();
    queue.add("a", key("a"), "set");
    queue.add("b", key("b"), "pexpire");
    queue.add("a", key("a"), "del");
    await clock.advance(5);
    expect(reads).toEqual([]);
    await clock.advance(5);
    expect(reads).toEqual([["a", "b"]]);
    expect(queue.size).toBe(0);
  });

  it("reads many changed keys in chunks", async () => {
    const { clock, queue, reads } = queueOf();
    for (let index = 0; index < 600; index += 1) queue.add(`k${index}`, key(`k${index}`), "set");
    await clock.advance(10);
    expect(reads.map((chunk) => chunk.length)).toEqual([READ_CHUNK_KEYS, READ_CHUNK_KEYS, 88]);
  });

  it("keeps what the events said until the read takes it", () => {
    const { queue } = queueOf();
    queue.add("a", key("a"), "set");
    queue.add("a", key("a"), "set");
    queue.add("a", key("a"), "expired");
    queue.add("b", key("b"), "evicted");
    expect(queue.takeEvents("a")).toEqual({ cause: "expired", sets: 2 });
    expect(queue.takeEvents("a")).toEqual({ cause: undefined, sets: 0 });
    expect(queue.takeEvents("b")).toEqual({ cause: "evicted", sets: 0 });
  });

  it("drops everything for a relist when more keys wait than it holds (overflow)", async () => {
    const { clock, queue, reads, dropped } = queueOf({ maxPendingKeys: 3 });
    for (const name of ["a", "b", "c"]) queue.add(name, key(name), "del");
    expect(dropped).toEqual([]);
    queue.add("d", key("d"), "set");
    expect(dropped).toEqual(["overflow"]);
    expect(queue.size).toBe(0);
    expect(queue.takeEvents("a")).toEqual({ cause: undefined, sets: 0 });
    await clock.advance(10);
    expect(reads).toEqual([]);
  });

  it("drops everything for a relist when a read fails", async () => {
    const { clock, queue, dropped } = queueOf({ failReads: true });
    queue.add("a", key("a"), "set");
    queue.add("b", key("b"), "set");
    await clock.advance(10);
    expect(dropped).toEqual(["reconnect"]);
    expect(queue.takeEvents("b")).toEqual({ cause: undefined, sets: 0 });
  });

  it("is idle once every key added before has been read", async () => {
    const { clock, queue, reads } = queueOf();
    await queue.idle();
    queue.add("a", key("a"), "set");
    let idle = false;
    void queue.idle().then(() => (idle = true));
    await clock.advance(9);
    expect(idle).toBe(false);
    await clock.advance(1);
    expect(reads).toEqual([["a"]]);
    expect(idle).toBe(true);
  });
});

describe("brief holds", () => {
  it.each([
    ["no set", 0, "v2", "v1", 0],
    ["one set, its value read", 1, "v2", "v1", 0],
    ["three sets, the last value read", 3, "v4", "v1", 2],
    ["three sets, gone by the read", 3, null, "v1", 3],
    ["sets of the value already held (extensions)", 3, "v1", "v1", 0],
    [
      "three sets, a value that is no lock read (the application's cache writes)",
      3,
      "not-a-lock",
      undefined,
      0,
    ],
    ["three sets, a value that is no lock replacing a held lock", 3, "not-a-lock", "v1", 0],
  ] as const)("%s", (_name, sets, readValue, knownValue, holds) => {
    const found =
      readValue === null || readValue === "not-a-lock" ? readValue : { value: readValue };
    expect(briefHolds(sets, found, knownValue)).toBe(holds);
  });
});
