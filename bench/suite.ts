/**
 * Runs the lock scenarios round by round, each library in a rotated order per round, on fresh
 * clients each time, and keeps every round's figures; medians are taken at the end.
 */
import type { Redis } from "ioredis";
import type { Masters } from "@/scripts/redis-masters";
import { plan } from "./config";
import { interleaved, LIBRARIES, type LibraryName } from "./peers";
import { contended } from "./scenarios/contended";
import { hungRelease } from "./scenarios/hung-release";
import { pausedNode, type QueueSample } from "./scenarios/paused-node";
import { sequential } from "./scenarios/sequential";
import { caseName, throughput, type ThroughputCase } from "./scenarios/throughput";
import { medianOfRounds } from "./stats";

type Figures = Record<string, number>;
/** scenario name -> library -> median figures over rounds. */
export type Medians = Record<string, Partial<Record<LibraryName, Figures>>>;

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export const THROUGHPUT_CASES: ThroughputCase[] = [false, true].flatMap((autoPipelining) =>
  plan.throughput.concurrencies.map((concurrency) => ({ concurrency, autoPipelining })),
);

export async function runLockRounds(
  urls: string[],
  admins: Redis[],
): Promise<{ medians: Medians; rounds: Record<string, Figures[]> }> {
  const rounds: Record<string, Figures[]> = {};
  const keep = (scenario: string, library: LibraryName, figures: Figures) =>
    (rounds[`${scenario}|${library}`] ??= []).push(figures);
  for (let roundIndex = 0; roundIndex < plan.rounds; roundIndex += 1) {
    const order = interleaved(roundIndex);
    log(`round ${roundIndex + 1}/${plan.rounds}, order ${order.join(", ")}`);
    for (const library of order)
      keep("sequential", library, await sequential(urls, library, roundIndex));
    for (const testCase of THROUGHPUT_CASES) {
      for (const library of order)
        keep(
          `throughput ${caseName(testCase)}`,
          library,
          await throughput(urls, library, roundIndex, testCase),
        );
    }
    for (const library of order)
      keep("contended", library, await contended(urls, admins, library, roundIndex));
    for (const library of order)
      keep(
        "handoff",
        library,
        await contended(urls, admins, library, roundIndex, plan.handoff, "handoff"),
      );
  }
  const medians: Medians = {};
  for (const [key, figures] of Object.entries(rounds)) {
    const [scenario, library] = key.split("|") as [string, LibraryName];
    (medians[scenario] ??= {})[library] = medianOfRounds(figures);
  }
  return { medians, rounds };
}

/** Release with 2 of 5 masters paused, once per library (order rotated). */
export async function runHungRelease(masters: Masters): Promise<{ medians: Medians }> {
  const medians: Medians = { "hung release": {} };
  for (const library of interleaved(plan.rounds + 1)) {
    log(`hung release: ${library}`);
    medians["hung release"]![library] = await hungRelease(masters, library);
  }
  return { medians };
}

/** One 30 s pause per library (too long to repeat); order rotated like the rounds. */
export async function runPausedNode(
  masters: Masters,
): Promise<{ medians: Medians; samples: Record<string, QueueSample[]> }> {
  const medians: Medians = { "paused node": {} };
  const samples: Record<string, QueueSample[]> = {};
  for (const library of interleaved(plan.rounds)) {
    log(`paused node: ${library} (${plan.paused.pausedMs / 1000} s)`);
    const run = await pausedNode(masters, library);
    medians["paused node"]![library] = run.result;
    samples[library] = run.samples;
  }
  return { medians, samples };
}

export { LIBRARIES };
