/**
 * The tree's import graph, as madge reads it: type-only imports included, the tsconfig paths
 * (`@/…`, `@redlock-console/redlock`) resolved, files named relative to the repository root.
 */
import path from "node:path";
import madge from "madge";

const root = path.resolve(import.meta.dirname, "../..");

/** Not ours, or built; everything else in the tree is read, lib/redlock and bench included. */
const EXCLUDED = [
  /(^|\/)node_modules\//,
  /^\.next/,
  /^\.data\//,
  /(^|\/)dist\//,
  /^test-results\//,
];

export function importGraph(): Promise<madge.MadgeInstance> {
  return madge(root, {
    baseDir: root,
    fileExtensions: ["ts", "tsx", "mts", "cts", "js", "mjs", "cjs"],
    tsConfig: path.join(root, "tsconfig.json"),
    excludeRegExp: EXCLUDED,
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
}

/**
 * How long building the graph may take: madge parses the whole tree, CPU-bound work that took
 * ~10 s alone and past the 30 s hook timeout with test files running beside it on 2 busy cores.
 */
export const GRAPH_BUDGET_MS = 120_000;
