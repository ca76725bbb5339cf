/**
 * What keyspace events would cost a master, as the node card says it before the action (issue 33
 * part 2): the write rate comes from the INFO the node report reads anyway, between two reports, and
 * the notifications it predicts match what a real master publishes for lock traffic. Counters that
 * cannot be compared (a restart, a save) give no rate rather than a wrong one.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createWriteRateMeter } from "@/lib/server/health/write-rate";
import { connect, disconnect, sleep, usePrivateMasters } from "../masters";
import { startTestConsole } from "./helpers";

const { masters } = usePrivateMasters(1);
let admin: Redis;
let listener: Redis;

beforeAll(async () => {
  [admin, listener] = connect([masters().urls[0]!, masters().urls[0]!]) as [Redis, Redis];
  await admin.config("SET", "notify-keyspace-events", "Kg$hzxe");
});

afterAll(async () => {
  if (admin) await disconnect([admin, listener]);
});

/** Lock traffic for `durationMs`: acquires with a TTL, releases, extensions, and holds that expire. */
async function lockTraffic(prefix: string, durationMs: number): Promise<void> {
  const token = () => "a".repeat(40);
  const until = Date.now() + durationMs;
  for (let round = 0; Date.now() < until; round += 1) {
    const key = `${prefix}${round}`;
    await admin.set(key, token(), "PX", round % 3 === 0 ? 200 : 30_000);
    if (round % 3 === 1) await admin.del(key);
    if (round % 3 === 2) await admin.pexpire(key, 60_000);
    await sleep(5);
  }
}

describe("the node report's write rate", () => {
  it("predicts the keyspace notifications a master publishes for lock traffic", async () => {
    const tc = startTestConsole(masters().urls);
    try {
      let published = 0;
      let probesHeard = 0;
      const probeKey = `${tc.prefix}probe`;
      listener.on("pmessage", (_pattern: string, channel: string) => {
        if (channel.endsWith(`:${probeKey}`)) probesHeard += 1;
        else published += 1;
      });
      // What happened to the listener's connection, for a failure to name (CI once counted 0
      // notifications for 2 s of traffic after the first probe was heard: a dropped subscription
      // and unpublished events would read alike without this).
      const connectionEvents: string[] = [];
      for (const event of ["close", "reconnecting", "ready", "error", "end"])
        listener.on(event, () => connectionEvents.push(`${event} (${published} counted)`));
      await listener.psubscribe("__keyspace@0__:*");
      /** A barrier, not a wait: the listener hears a probe write, or the test says why it cannot. */
      const heardProbe = async (when: string) => {
        const heardBefore = probesHeard;
        await admin.set(probeKey, when);
        await vi.waitFor(
          async () => {
            if (probesHeard > heardBefore) return;
            throw new Error(
              `${when}: the listener heard no notification of ${probeKey}; ${await why()}`,
            );
          },
          { timeout: 20_000, interval: 50 },
        );
        await admin.del(probeKey);
        await listener.ping(); // the probe's del is heard before what follows
      };
      const why = async () => {
        const flags = ((await admin.config("GET", "notify-keyspace-events")) as string[])[1];
        const subscribers = String(await admin.call("CLIENT", "LIST", "TYPE", "pubsub")).trim();
        const patterns = /^pubsub_patterns:(\d+)/m.exec(await admin.info("stats"))?.[1];
        return (
          `listener ${listener.status}, its connection's events: [${connectionEvents.join(", ")}]; ` +
          `notify-keyspace-events "${flags}"; pubsub_patterns ${patterns}; pubsub clients: ${subscribers}`
        );
      };
      await heardProbe("before");
      published = 0;
      await tc.ctx.nodes(); // the first sample
      await lockTraffic(tc.prefix, 2_000);
      await sleep(400); // the 200 ms holds expire (active expiry runs 10 times a second)
      await admin.ping();
      await listener.ping(); // every notification published before is counted
      const { nodes } = await tc.ctx.nodes();
      // The subscription still works after the window (its probes are not counted as traffic).
      await heardProbe("after");
      const rate = nodes[0]!.writeRate!;
      expect(rate.keyWritesPerS).toBeGreaterThan(0);
      expect(rate.expiriesPerS).toBeGreaterThan(0);
      const inWindow = (perS: number) => (perS * rate.measuredOverMs) / 1_000;
      const writes = inWindow(rate.keyWritesPerS);
      const expiries = inWindow(rate.expiriesPerS);
      // The card's range: one notification per key write or expiry, two for a write with a TTL.
      expect(
        published,
        `${published} notifications counted over the window; ${await why()}`,
      ).toBeGreaterThanOrEqual(Math.floor((writes + expiries) * 0.98));
      expect(published).toBeLessThanOrEqual(Math.ceil((2 * writes + expiries) * 1.02));
    } finally {
      await listener.punsubscribe();
      await tc.close();
    }
  });
});

describe("createWriteRateMeter", () => {
  const info = (dirty: number, expired: number, extra: Record<string, string> = {}) => ({
    run_id: "r1",
    rdb_last_save_time: "100",
    rdb_changes_since_last_save: String(dirty),
    expired_keys: String(expired),
    evicted_keys: "0",
    ...extra,
  });

  it("gives no rate from one sample, then the change per second over the window", () => {
    const meter = createWriteRateMeter();
    expect(meter.sample("node-1", info(100, 5), 10_000)).toBeNull();
    expect(meter.sample("node-1", info(2_500, 45), 12_000)).toEqual({
      keyWritesPerS: 1_200,
      expiriesPerS: 20,
      measuredOverMs: 2_000,
    });
  });

  it("keeps the last rate for a report under a second after the previous one (noise)", () => {
    const meter = createWriteRateMeter();
    meter.sample("node-1", info(0, 0), 0);
    const rate = meter.sample("node-1", info(1_000, 0), 1_000);
    expect(meter.sample("node-1", info(1_001, 0), 1_010)).toEqual(rate);
  });

  it.each([
    ["a restart (new run_id)", info(10, 0, { run_id: "r2" })],
    ["a save (the dirty counter restarts)", info(10, 0, { rdb_last_save_time: "101" })],
    ["a counter that went back", info(10, 0)],
  ])("gives no rate across %s", (_case, after) => {
    const meter = createWriteRateMeter();
    meter.sample("node-1", info(500, 0), 0);
    expect(meter.sample("node-1", after, 2_000)).toBeNull();
  });

  it("keeps each node apart", () => {
    const meter = createWriteRateMeter();
    meter.sample("node-1", info(0, 0), 0);
    meter.sample("node-2", info(0, 0), 0);
    expect(meter.sample("node-2", info(4_000, 0), 2_000)?.keyWritesPerS).toBe(2_000);
    expect(meter.sample("node-1", info(0, 0), 2_000)?.keyWritesPerS).toBe(0);
  });
});
