/**
 * The owner `service` metric label is bounded without a flood pinning it (issue 49, row 10): after
 * 50 junk services, a real `payments` lock is counted under service="payments" in /api/metrics (the
 * stalest junk service's series removed in its place), and a service named in
 * CONSOLE_METRICS_SERVICES keeps its series through any flood. Real library locks on the five
 * shared masters, a real console scraped through its route.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as metrics from "@/app/api/metrics/route";
import { MetricServices } from "@/lib/server/metric-services";
import Redlock, { type Lock } from "@redlock-console/redlock";
import { connect, disconnect, sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const clients = connect(sharedUrls());
let redlock: Redlock;
const held: Lock[] = [];

beforeAll(() => {
  redlock = new Redlock(clients, { retryCount: 0 });
});
afterEach(async () => {
  await Promise.all(held.splice(0).map((lock) => lock.release().catch(() => undefined)));
});
afterAll(async () => {
  await redlock.quit();
  await disconnect(clients);
});

async function holdAs(tc: TestConsole, service: string): Promise<void> {
  const resource = `${tc.prefix}${service}:${randomUUID()}`;
  held.push(await redlock.acquire([resource], 60_000, { owner: { service } }));
}

/** service → count of `acquired` transitions, as /api/metrics says now. */
async function acquisitionsByService(): Promise<Map<string, number>> {
  const scrape = await call(metrics.GET, "/api/metrics");
  const counts = new Map<string, number>();
  for (const line of scrape.text.split("\n")) {
    if (!line.startsWith("redlock_console_lock_transitions_total{")) continue;
    if (!line.includes('kind="acquired"')) continue;
    const service = /service="([^"]*)"/.exec(line)?.[1];
    if (service !== undefined) counts.set(service, Number(line.split(" ").at(-1)));
  }
  return counts;
}

const junk = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => `junk-${from + index}`);

async function flood(tc: TestConsole, services: string[]): Promise<void> {
  for (const service of services) await holdAs(tc, service);
  const last = services.at(-1)!;
  await expect
    .poll(async () => (await acquisitionsByService()).get(last), { timeout: 20_000 })
    .toBe(1);
}

describe("the owner service label after a flood of labels", () => {
  let tc: TestConsole;
  beforeAll(async () => {
    tc = startTestConsole(sharedUrls()); // CONSOLE_METRICS_MAX_SERVICES: 50, the default
    await tc.historyWhole();
  });
  afterAll(() => tc?.close());

  it("counts a real payments lock taken after 50 junk services under service=payments, the stalest junk series removed", async () => {
    await flood(tc, junk(0, 50));
    expect((await acquisitionsByService()).size).toBe(50);
    await holdAs(tc, "payments");
    await expect
      .poll(async () => (await acquisitionsByService()).get("payments"), { timeout: 20_000 })
      .toBe(1);
    const counted = await acquisitionsByService();
    expect(counted.has("other")).toBe(false);
    expect(counted.has("junk-0")).toBe(false);
    expect(counted.get("junk-1")).toBe(1);
    expect(counted.size).toBe(50);
  });
});

describe("a pinned service (CONSOLE_METRICS_SERVICES)", () => {
  let tc: TestConsole;
  beforeAll(async () => {
    tc = startTestConsole(sharedUrls(), { metricsServices: ["payments"] });
    await tc.historyWhole();
  });
  afterAll(() => tc?.close());

  it("keeps its series through a flood that displaces every other service", async () => {
    await flood(tc, junk(100, 50));
    await holdAs(tc, "payments");
    await flood(tc, junk(200, 50));
    const counted = await acquisitionsByService();
    expect(counted.get("payments")).toBe(1);
    expect(counted.has("junk-149")).toBe(false);
    expect(counted.size).toBe(51);
  });
});

describe("MetricServices", () => {
  it("names the most recently seen services, a new one displacing the one seen longest ago", () => {
    const displaced: string[] = [];
    const services = new MetricServices({
      pinned: ["payments"],
      maxServices: 2,
      onDisplaced: (service) => displaced.push(service),
    });
    const labels = ["a", "b", "a", "c", "payments", "d", "x".repeat(70)].map((service) =>
      services.label(service),
    );
    expect(labels).toEqual(["a", "b", "a", "c", "payments", "d", "x".repeat(64)]);
    expect(displaced).toEqual(["b", "a", "c"]);
  });
});
