// test-group: alone
/**
 * The torture test. Short form (part of `npm test`): at least 2,000 lock cycles and 50 faults.
 * Long form: `TORTURE_LONG=1 npx vitest run test/torture/torture.test.ts` (or `npm run test:torture`);
 * TORTURE_CYCLES, TORTURE_FAULTS and TORTURE_SEED override the targets and the seed.
 * The seed: on CI (CI set), the commit's, so a red run replays with the same seed on the same
 * commit; otherwise (a developer's run, the long form) a random one, printed with the result.
 * TORTURE_QUARANTINE_MS=off runs without restart quarantine: the checker then finds overlaps (the
 * test fails), which shows the torture can catch what quarantine prevents.
 */
import { execFileSync } from "node:child_process";
import { expect, test } from "vitest";
import { FAULT_KINDS } from "./fault-injector";
import { formatResult, runTorture, type TortureOptions } from "./run-torture";

const long = process.env.TORTURE_LONG === "1";
const envNumber = (name: string, fallback: number) =>
  process.env[name] ? Number(process.env[name]) : fallback;
const ttlMs = 1_000;

/** The first 5 hex digits of HEAD as a number (0..1,048,575), or null outside a git checkout. */
function commitSeed(): number | null {
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    return Number.parseInt(head.slice(0, 5), 16);
  } catch {
    return null;
  }
}

const defaultSeed =
  (process.env.CI && !long ? commitSeed() : null) ?? Math.floor(Math.random() * 1_000_000);

const options: TortureOptions = {
  workers: long ? 6 : 4,
  resources: 4,
  ttlMs,
  // The seed's rule: at least the longest TTL.
  restartQuarantineMs:
    process.env.TORTURE_QUARANTINE_MS === "off" ? false : envNumber("TORTURE_QUARANTINE_MS", ttlMs),
  minCycles: envNumber("TORTURE_CYCLES", long ? 20_000 : 2_000),
  minFaults: envNumber("TORTURE_FAULTS", long ? 500 : 50),
  maxDurationMs: long ? 30 * 60_000 : 120_000,
  faultIntervalMs: [300, 900],
  seed: envNumber("TORTURE_SEED", defaultSeed),
};

test(
  `${long ? "long" : "short"} torture: worker processes under node pauses, empty restarts and stalled holders never break exclusion or fencing`,
  async () => {
    const result = await runTorture(options);
    console.log(formatResult(result));
    expect(result.report.violations).toEqual([]);
    expect(result.report.holders).toBeGreaterThanOrEqual(options.minCycles);
    expect(result.faultCount).toBeGreaterThanOrEqual(options.minFaults);
    for (const kind of FAULT_KINDS) expect(result.faults[kind], kind).toBeGreaterThan(0);
    // The fencing path was really exercised: stalled holders wrote late and the store refused them.
    expect(result.report.staleWritesRefused).toBeGreaterThan(0);
  },
  options.maxDurationMs + 90_000,
);
