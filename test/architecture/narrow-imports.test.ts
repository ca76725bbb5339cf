/**
 * Issue 40, items 3 and 4: the console's whole context reaches only the composition root and the
 * route wrapper (every action and the login take the slice they use), and lib/api has one door:
 * index.ts names its surface, and nothing outside lib/api imports one of its files directly.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const tracked = (...patterns: string[]) =>
  execFileSync("git", ["ls-files", ...patterns], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);

const sources = tracked("*.ts", "*.tsx");
const text = (file: string) => readFileSync(file, "utf8");

describe("narrow dependencies", () => {
  it("only the composition root and the route wrapper name ConsoleContext (tests aside)", () => {
    const naming = sources.filter(
      (file) =>
        (file.startsWith("lib/") || file.startsWith("app/")) &&
        /\bConsoleContext\b/.test(text(file)),
    );
    // console.ts declares it; default-console.ts holds the process-wide instance console.ts builds.
    expect(naming.sort()).toEqual([
      "app/api/_lib/route.ts",
      "lib/server/console.ts",
      "lib/server/default-console.ts",
    ]);
  });
});

describe("lib/api's one door", () => {
  it("index.ts names what it exports (no export *)", () => {
    const index = text("lib/api/index.ts");
    expect(index).not.toMatch(/export \*/);
    expect(index).toMatch(/export \{ ApiError,/);
  });

  it("nothing outside lib/api imports one of its files directly", () => {
    const direct = sources.filter(
      (file) => !file.startsWith("lib/api/") && /["']@\/lib\/api\/[^"']+["']/.test(text(file)),
    );
    expect(direct).toEqual([]);
  });
});
