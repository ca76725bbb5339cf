/**
 * What one overview tab costs at BENCH_TAB_LOCKS locks (default 100,000) × 5 masters
 * (`BENCH_ONLY=overview-tab`, issue 41): the time to its first rows and the bytes an idle tab
 * moves per second, for the overview's two ways of reading the locks, called in-process on the
 * real route handlers (the browser's rendering is not counted). Bytes are counted as sent by
 * `next start`, which gzips JSON responses (the stream's events are not compressed), and raw:
 * - "every row, polled": the overview before issue 41 — every page of 1,000 rows up to 20,000,
 *   shown once the last arrived, fetched again every 5 s (its interval above 2,000 locks);
 * - "page + stream": one page of 200 rows in the server's order, then the change stream
 *   (`/api/events/stream`, keepalives only while nothing changes) and a safety poll every 60 s.
 */
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { gzipSync } from "node:zlib";
import type { Redis } from "ioredis";
import { seedLocks } from "./seed";

register("./server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");
const { setDefaultConsole } = await import("@/lib/server/default-console");
const locksRoute = await import("@/app/api/locks/route");
const streamRoute = await import("@/app/api/events/stream/route");

const LOCKS = Number(process.env.BENCH_TAB_LOCKS ?? 100_000);
/** How long the idle stream is read, in ms. */
const STREAM_WINDOW_MS = Number(process.env.BENCH_TAB_STREAM_MS ?? 32_000);
const PREFIX = "tab:";
const BEFORE = { pageRows: 1_000, maxRows: 20_000, everyMs: 5_000 };
const AFTER = { pageRows: 200, pollEveryMs: 60_000 };
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const get = (handler: (request: Request) => Promise<Response>, path: string) =>
  handler(new Request(`http://console.bench${path}`, { headers: { host: "console.bench" } }));

/** Every page up to `maxRows`, as the overview fetched them: time until the last, and bytes. */
interface Fetched {
  ms: number;
  /** Gzipped, as `next start` sends them. */
  bytes: number;
  rawBytes: number;
}

const sizes = (text: string) => ({
  bytes: gzipSync(text).byteLength,
  rawBytes: Buffer.byteLength(text),
});

async function everyRow(): Promise<Fetched> {
  const startedMs = performance.now();
  let bytes = 0;
  let rawBytes = 0;
  let rows = 0;
  let cursor: string | null = null;
  do {
    const query = `limit=${BEFORE.pageRows}${cursor ? `&cursor=${cursor}` : ""}`;
    const text = await (await get(locksRoute.GET, `/api/locks?${query}`)).text();
    const size = sizes(text);
    bytes += size.bytes;
    rawBytes += size.rawBytes;
    const page = JSON.parse(text) as { items: unknown[]; nextCursor: string | null };
    rows += page.items.length;
    cursor = page.nextCursor;
  } while (cursor && rows < BEFORE.maxRows);
  return { ms: performance.now() - startedMs, bytes, rawBytes };
}

async function onePage(): Promise<Fetched> {
  const startedMs = performance.now();
  const text = await (await get(locksRoute.GET, `/api/locks?limit=${AFTER.pageRows}`)).text();
  const ms = performance.now() - startedMs;
  return { ms, ...sizes(text) };
}

/** Bytes the change stream sends in STREAM_WINDOW_MS while no lock changes. */
async function idleStreamBytes(): Promise<number> {
  const response = await get(streamRoute.GET, "/api/events/stream");
  const reader = response.body!.getReader();
  let bytes = 0;
  const deadline = sleep(STREAM_WINDOW_MS).then(() => null);
  for (;;) {
    const chunk = await Promise.race([reader.read(), deadline]);
    if (chunk === null || chunk.done) break;
    bytes += chunk.value.byteLength;
  }
  await reader.cancel();
  return bytes;
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

export async function overviewTab(urls: string[], admins: Redis[]) {
  log(`overview tab: seeding ${LOCKS} locks on each of ${admins.length} masters`);
  await seedLocks(admins, PREFIX, 0, LOCKS, 3_600_000, true);
  const ctx = createConsole(
    configFor(urls, {
      lockMatch: [`${PREFIX}*`],
      logLevel: "silent",
      probeIntervalMs: 0,
      scanBudgetPerS: 1_000_000,
    }),
  );
  setDefaultConsole(ctx);
  try {
    await ctx.index.sync();
    log(`overview tab: ${ctx.index.size} locks indexed`);
    const before: Fetched[] = [];
    const after: Fetched[] = [];
    for (let run = 0; run < 5; run += 1) {
      before.push(await everyRow());
      after.push(await onePage());
    }
    const streamBytes = await idleStreamBytes();
    const perS = (bytes: number, everyMs: number) => Math.round(bytes / (everyMs / 1000));
    const streamPerS = perS(streamBytes, STREAM_WINDOW_MS);
    return {
      locks: ctx.index.size,
      beforeFirstRowsMs: Math.round(medianOf(before.map((run) => run.ms))),
      beforeIdleBytesPerS: perS(medianOf(before.map((run) => run.bytes)), BEFORE.everyMs),
      beforeIdleRawBytesPerS: perS(medianOf(before.map((run) => run.rawBytes)), BEFORE.everyMs),
      afterFirstRowsMs: Math.round(medianOf(after.map((run) => run.ms))),
      afterIdleBytesPerS:
        perS(medianOf(after.map((run) => run.bytes)), AFTER.pollEveryMs) + streamPerS,
      afterIdleRawBytesPerS:
        perS(medianOf(after.map((run) => run.rawBytes)), AFTER.pollEveryMs) + streamPerS,
      afterIdleStreamBytesPerS: streamPerS,
    };
  } finally {
    setDefaultConsole(undefined);
    await ctx.close();
    await Promise.all(
      admins.map(async (admin) => {
        for (let start = 0; start < LOCKS; start += 1_000) {
          const names = Array.from({ length: Math.min(1_000, LOCKS - start) }, (_, index) => {
            return `${PREFIX}${start + index}`;
          });
          await admin.unlink(...names);
        }
      }),
    );
  }
}
