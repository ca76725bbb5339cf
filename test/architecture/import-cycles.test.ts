/**
 * No import cycle anywhere in the tree, type-only imports included: a cycle makes the order in which
 * modules initialise depend on which one is loaded first, and says two files are really one.
 * ESLint's import/no-cycle skips `import type`, so this asks madge (its dependency tree resolves
 * the tsconfig paths `@/…` and `@redlock-console/redlock`).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GRAPH_BUDGET_MS, importGraph } from "./import-graph";

const inLibrary = (cycle: string[]) => cycle.some((file) => file.startsWith("lib/redlock/"));
const shown = (found: string[][]) => found.map((cycle) => cycle.join(" -> "));

let cycles: string[][] = [];

beforeAll(async () => {
  cycles = (await importGraph()).circular();
}, GRAPH_BUDGET_MS);

describe("imports", () => {
  // lib/redlock imports nothing of ours, so a cycle is either all inside it or all outside it.
  it("form no cycle in the console (app, components, hooks, lib/server, lib/api, tests, scripts)", () => {
    expect(shown(cycles.filter((cycle) => !inLibrary(cycle)))).toEqual([]);
  });

  it("form no cycle in the library (lib/redlock)", () => {
    expect(shown(cycles.filter(inLibrary))).toEqual([]);
  });
});
