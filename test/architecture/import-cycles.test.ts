/**
 * No import cycle anywhere in the tree, type-only imports included: a cycle makes the order in which
 * modules initialise depend on which one is loaded first, and says two files are really one.
 * ESLint's import/no-cycle skips `import type`, so this asks madge (its dependency tree resolves
 * the tsconfig paths `@/…` and `@redlock-console/redlock`).
 */
import path from "node:path";
import madge from "madge";
import { beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** Not ours, or built; everything else in the tree is checked, lib/redlock and bench included. */
const EXCLUDED = [
  /(^|\/)node_modules\//,
  /^\.next/,
  /^\.data\//,
  /(^|\/)dist\//,
  /^test-results\//,
];

const inLibrary = (cycle: string[]) => cycle.some((file) => file.startsWith("lib/redlock/"));
const shown = (found: string[][]) => found.map((cycle) => cycle.join(" -> "));

let cycles: string[][] = [];

beforeAll(async () => {
  const graph = await madge(root, {
    baseDir: root,
    fileExtensions: ["ts", "tsx", "mts", "cts", "js", "mjs", "cjs"],
    tsConfig: path.join(root, "tsconfig.json"),
    excludeRegExp: EXCLUDED,
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  cycles = graph.circular();
});

describe("imports", () => {
  // lib/redlock imports nothing of ours, so a cycle is either all inside it or all outside it.
  it("form no cycle in the console (app, components, hooks, lib/server, lib/api, tests, scripts)", () => {
    expect(shown(cycles.filter((cycle) => !inLibrary(cycle)))).toEqual([]);
  });

  it("form no cycle in the library (lib/redlock)", () => {
    expect(shown(cycles.filter(inLibrary))).toEqual([]);
  });
});
