import "server-only";
/**
 * How V8 sizes the server's heap (CONSOLE_HEAP_MODE). By default V8 lets an old generation grow to
 * up to ~4× what was live at the last full collection before it collects again. At 100k locks × 5
 * nodes that is ~155 MB live under ~420 MB RSS while the first listing's garbage waits, and a peak
 * of ~530 MB under ten metrics scrapers (bench/README.md, "Memory and stalls"). "compact" (the
 * default) caps the growth at 2× (V8's --heap-growing-percent=100): ~340 MB just after the
 * listing, ~250 MB once V8's memory reducer has collected the idle heap, ~370 MB at the same peak,
 * for event-loop delay and listing time within run-to-run noise of V8's own sizing.
 * (--optimize-for-size, tried: ~220 MB, but the listing took 70% longer and the event-loop delay's
 * p99 doubled.) Set at run time (v8.setFlagsFromString), before the first listing, so it holds
 * however the server is started (`npm start`, `next start`, the image); V8 reads it at every
 * collection.
 */
import { setFlagsFromString } from "node:v8";
import type { HeapMode } from "./config";

/** The old generation may grow to this many percent above what was live (V8's default: 0, its own). */
const COMPACT_HEAP_GROWING_PERCENT = 100;

export function applyHeapMode(mode: HeapMode): void {
  if (mode === "compact")
    setFlagsFromString(`--heap-growing-percent=${COMPACT_HEAP_GROWING_PERCENT}`);
}
