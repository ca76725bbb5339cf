/**
 * Every latency target, in the order `npm run bench` measures them (BENCH_ONLY=targets for these
 * alone; BENCH_TARGETS=<words> for those whose name contains them). Each file groups the targets
 * of one part of the product; a target's `test` names the test that keeps its invariant.
 */
import { LIBRARY_TARGETS } from "./library";
import { SERVER_TARGETS } from "./server";
import type { LatencyTarget } from "./target";

export const TARGETS: readonly LatencyTarget[] = [...LIBRARY_TARGETS, ...SERVER_TARGETS];
