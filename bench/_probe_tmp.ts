import { register } from "node:module";
import { performance } from "node:perf_hooks";
register("./server-only-hooks.mjs", import.meta.url);
const { createConsole } = await import("@/lib/server/console");
const { configFor } = await import("@/lib/server/config");
const ctx = createConsole(
  configFor(process.argv[2]!.split(","), {
    lockMatch: ["*"],
    logLevel: "silent",
    probeIntervalMs: 0,
  }),
);
await ctx.index.sync();
const idx = ctx.index;
for (let i = 0; i < 3; i++) {
  let t = performance.now();
  const keys = [...idx.keysFrom("")];
  console.log("keys", keys.length, performance.now() - t);
  t = performance.now();
  let n = 0;
  for (const k of keys) for (const w of idx.watches) if (w.get(k)) n++;
  console.log("gets", n, performance.now() - t);
  t = performance.now();
  idx.figures(Date.now());
  console.log("figures", performance.now() - t);
  const w = idx.watches[0] as any;
  t = performance.now();
  n = 0;
  for (const k of w.keys()) if (w.get(k)) n++;
  console.log("own keys gets", n, performance.now() - t);
  t = performance.now();
  const m = new Map(keys.map((k) => [k, 1]));
  n = 0;
  for (const k of keys) if (m.get(k)) n++;
  console.log("fresh map", n, performance.now() - t);
}
await ctx.close();
process.exit(0);
