/**
 * The replicas' pieces on their own: the lease and the fenced append on a real Redis (the store
 * restarted empty is a FLUSHALL here: what matters is that the epoch counter starts over), and the
 * reconcile rule as a table.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { makeTransition, type Transition } from "@/lib/api";
import { WriterLease, WRITER_LEASE_KEY, writerTagOf } from "@/lib/server/replicas/lease";
import { APPEND_SCRIPT } from "@/lib/server/replicas/lua";
import { AS_OF_MARGIN_MS, PENDING_MAX, Reconciler } from "@/lib/server/replicas/reconcile";
import { LAST_ID_KEY, SharedHistory } from "@/lib/server/replicas/shared-history";
import { AS_OF_STREAM, TRANSITIONS_STREAM } from "@/lib/server/timeline/state-store";
import { usePrivateClient } from "../masters";

const store = usePrivateClient();

async function append(token: string, id: number): Promise<string> {
  const [outcome] = await APPEND_SCRIPT.run(
    store(),
    [WRITER_LEASE_KEY, TRANSITIONS_STREAM, AS_OF_STREAM, LAST_ID_KEY],
    [token, writerTagOf(token), "1000", "", String(id), JSON.stringify({ id })],
  );
  return outcome;
}

describe("the history writer's lease and the fenced append", () => {
  beforeEach(async () => {
    await store().flushall();
  });

  it("one writer at a time; the holder renews, another waits", async () => {
    const a = new WriterLease(store(), "a", 5_000);
    const b = new WriterLease(store(), "b", 5_000);
    const first = await a.tick();
    expect(first).toMatchObject({ kind: "writer", epoch: 1 });
    expect(await b.tick()).toEqual({ kind: "follower", writer: "1:a" });
    expect(await a.tick()).toEqual(first);
    await a.resign();
    expect(await b.tick()).toMatchObject({ kind: "writer", epoch: 2 });
  });

  it("an append under a lease that passed to another is refused, and writes nothing", async () => {
    const a = new WriterLease(store(), "a", 1_000);
    const b = new WriterLease(store(), "b", 1_000);
    const aRole = await a.tick();
    if (aRole.kind !== "writer") throw new Error("a should write");
    expect(await append(aRole.token, 10)).toBe("ok");
    await store().del(WRITER_LEASE_KEY); // a's lease ran out while it was paused
    const bRole = await b.tick();
    if (bRole.kind !== "writer") throw new Error("b should write");
    expect(await append(aRole.token, 11)).toBe("fenced");
    expect(await append(bRole.token, 11)).toBe("ok");
    expect(await store().xlen(TRANSITIONS_STREAM)).toBe(2);
  });

  it("the store restarted empty: the epoch starts over, and the old writer's token is still refused (equality, not greater-or-equal)", async () => {
    const a = new WriterLease(store(), "a", 5_000);
    const aRole = await a.tick();
    if (aRole.kind !== "writer") throw new Error("a should write");
    await store().flushall();
    const b = new WriterLease(store(), "b", 5_000);
    const bRole = await b.tick();
    if (bRole.kind !== "writer") throw new Error("b should write");
    expect(bRole.epoch).toBe(aRole.epoch); // the same epoch number, another token
    expect(await append(aRole.token, 20)).toBe("fenced");
    expect(await append(bRole.token, 20)).toBe("ok");
  });

  it("a writer whose lease passed to another while it was paused: its late append is refused, what it folded becomes pending", async () => {
    const accepted: Transition[] = [];
    const a = new SharedHistory(store(), {
      replicaId: "a",
      leaseMs: 60_000,
      maxLen: 1_000,
      accept: (transition) => accepted.push(transition),
    });
    await a.joinLease();
    try {
      expect(a.historyWriter).toBe(true);
      // Paused past its lease: another replica took over (a still believes it writes).
      await store().del(WRITER_LEASE_KEY);
      expect(await new WriterLease(store(), "b", 60_000).tick()).toMatchObject({ kind: "writer" });
      a.record(t("acquired", "late"));
      await vi.waitFor(() => expect(a.historyWriter).toBe(false));
      expect(await store().xlen(TRANSITIONS_STREAM)).toBe(0);
    } finally {
      await a.close();
    }
  });

  it("an id not above the last written is refused before anything is written", async () => {
    const role = await new WriterLease(store(), "a", 5_000).tick();
    if (role.kind !== "writer") throw new Error("a should write");
    expect(await append(role.token, 30)).toBe("ok");
    expect(await append(role.token, 30)).toBe("order");
    expect(await store().xlen(TRANSITIONS_STREAM)).toBe(1);
  });
});

let nextId = 1;
const t = (kind: Transition["kind"], value: string, at = 10_000): Transition =>
  makeTransition({ id: nextId++, kind, resource: "r", value, at });

describe("the reconcile rule (reconcile.ts)", () => {
  const cases: Array<{
    name: string;
    run: (r: Reconciler) => void;
    written: string[];
  }> = [
    {
      name: "stored before folded here: not written twice",
      run: (r) => (r.stored(t("acquired", "v1"), 0), r.pending(t("acquired", "v1"))),
      written: [],
    },
    {
      name: "folded here before stored: not written twice",
      run: (r) => (r.pending(t("acquired", "v1")), r.stored(t("acquired", "v1"), 0)),
      written: [],
    },
    {
      name: "never stored by the dead writer: written, in fold order",
      run: (r) => {
        r.pending(t("acquired", "v1"));
        r.stored(t("acquired", "v1"), 0);
        r.pending(t("released", "v1"));
        r.pending(t("acquired", "v2"));
      },
      written: ["released v1", "acquired v2"],
    },
    {
      name: "extensions match one for one",
      run: (r) => {
        r.pending(t("extended", "v1"));
        r.pending(t("extended", "v1"));
        r.stored(t("extended", "v1"), 0);
      },
      written: ["extended v1"],
    },
    {
      name: "before the writer's as-of (minus the margin), unmatched: a difference of views, dropped",
      run: (r) => {
        r.pending(t("acquired", "v1", 10_000));
        r.pending(t("acquired", "v2", 10_000 + AS_OF_MARGIN_MS));
        r.asOf(10_000 + AS_OF_MARGIN_MS);
      },
      written: ["acquired v2"],
    },
    {
      name: "a stored one no fold met within the memory: forgotten, a later fold is written",
      run: (r) => {
        r.stored(t("acquired", "v1"), 0);
        r.prune(60_000);
        r.pending(t("acquired", "v1"));
      },
      written: ["acquired v1"],
    },
  ];
  it.each(cases)("$name", ({ run, written }) => {
    const reconciler = new Reconciler();
    run(reconciler);
    expect(reconciler.takeover(50_000).map((x) => `${x.kind} ${x.value}`)).toEqual(written);
    expect(reconciler.pendingCount).toBe(0);
  });

  it("past the bound, the oldest are dropped and the takeover writes a gap with its reason first", () => {
    const reconciler = new Reconciler();
    for (let index = 0; index <= PENDING_MAX; index += 1)
      reconciler.pending(t("acquired", `v${index}`, 1_000 + index));
    const written = reconciler.takeover(50_000);
    expect(written).toHaveLength(PENDING_MAX + 1);
    expect(written[0]).toMatchObject({ kind: "gap", since: 1_000, reason: "replica-backlog" });
    expect(written[1]!.value).toBe("v1");
  });
});
