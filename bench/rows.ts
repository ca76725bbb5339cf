/** Which median figures make the printed table, and in which direction each is better. */
import type { Row } from "./report";
import type { Medians } from "./suite";

interface MetricSpec {
  readonly metric: string;
  readonly higherIsBetter: boolean;
}

const higher = (metric: string): MetricSpec => ({ metric, higherIsBetter: true });
const lower = (metric: string): MetricSpec => ({ metric, higherIsBetter: false });

/** Scenario name prefix -> the metrics shown for it (the JSON keeps every figure). */
const SHOWN: ReadonlyArray<[string, MetricSpec[]]> = [
  [
    "sequential",
    [
      higher("opsPerS"),
      lower("pairP50Ms"),
      lower("pairP99Ms"),
      lower("acquireP50Ms"),
      lower("acquireP99Ms"),
      lower("cpuUsPerOp"),
    ],
  ],
  ["throughput", [higher("opsPerS"), lower("p99Ms"), lower("cpuUsPerOp")]],
  [
    "contended",
    [
      higher("acquisitionsPerS"),
      lower("handoffP50Ms"),
      higher("jainIndex"),
      higher("minShare"),
      lower("wastedAttemptsPerAcquisition"),
      lower("redisCommandsPerAcquisition"),
    ],
  ],
  [
    "handoff",
    [
      lower("handoffP50Ms"),
      lower("handoffP99Ms"),
      higher("acquisitionsPerS"),
      higher("jainIndex"),
      lower("redisCommandsPerAcquisition"),
    ],
  ],
  ["hung release", [lower("releaseP50Ms"), lower("releaseP99Ms"), lower("acquireP50Ms")]],
  [
    "paused node",
    [
      lower("healthyP99Ms"),
      lower("pausedP99Ms"),
      lower("p99Ratio"),
      lower("pendingCommandsEnd"),
      lower("heapGrowthMb"),
    ],
  ],
  [
    "index",
    [
      lower("firstListingS"),
      higher("listedKeysPerSPerNode"),
      lower("listingCommandsPerSPerNode"),
      lower("listingRedisCpuPctPerNode"),
      lower("pageP50Ms"),
      lower("pageP99Ms"),
      lower("visibleP50Ms"),
      lower("visibleP99Ms"),
      lower("idleCommandsPerS1"),
      lower("idleCommandsPerS50"),
      lower("consoleRssMb"),
    ],
  ],
  [
    "memory",
    [
      lower("rssMb"),
      lower("heapUsedMb"),
      lower("loopDelayP99Ms"),
      lower("loopDelayMaxMs"),
      lower("scrapeP50Ms"),
      lower("healthP50Ms"),
      lower("healthP99Ms"),
    ],
  ],
  [
    "readers",
    [
      lower("pageP50Ms"),
      lower("pageP90Ms"),
      lower("pageAnonymousP90Ms"),
      lower("pagesGcMaxMs"),
      lower("burstMs"),
      lower("burstZrangebyscore"),
      lower("burstHealthP99Ms"),
      lower("burstLockPageMaxMs"),
      lower("scrapersHealthP99Ms"),
      lower("scrapersLoopDelayP99Ms"),
    ],
  ],
];

export function buildRows(medians: Medians): Row[] {
  const rows: Row[] = [];
  for (const [scenario, byLibrary] of Object.entries(medians)) {
    const specs = SHOWN.find(([prefix]) => scenario.startsWith(prefix))?.[1] ?? [];
    for (const spec of specs) {
      const values = Object.fromEntries(
        Object.entries(byLibrary).map(([library, figures]) => [library, figures?.[spec.metric]]),
      );
      rows.push({ scenario, ...spec, values });
    }
  }
  return rows;
}
