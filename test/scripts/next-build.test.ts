/** The build freshness check shared by `npm start` and the e2e stack, on a real directory tree. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildIsStale } from "@/scripts/next-build";

let root: string;
const file = (relative: string) => path.join(root, relative);
/** Sets a file's or directory's mtime to `secondsAgo` before now. */
const age = (relative: string, secondsAgo: number) => {
  const at = new Date(Date.now() - secondsAgo * 1_000);
  utimesSync(file(relative), at, at);
};

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "next-build-"));
  mkdirSync(file("app/locks"), { recursive: true });
  mkdirSync(file("app/node_modules"), { recursive: true });
  mkdirSync(file(".next"));
  writeFileSync(file("app/page.tsx"), "page");
  writeFileSync(file("app/locks/page.tsx"), "page");
  writeFileSync(file("package.json"), "{}");
  for (const entry of [
    "app/page.tsx",
    "app/locks/page.tsx",
    "app/locks",
    "app/node_modules",
    "app",
    "package.json",
  ])
    age(entry, 60);
  writeFileSync(file(".next/BUILD_ID"), "build");
  age(".next/BUILD_ID", 30);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("build freshness", () => {
  it("reuses a build newer than every source", () => {
    expect(buildIsStale(root)).toBe(false);
  });

  it("rebuilds without a build, or when a source file changed after it", () => {
    expect(buildIsStale(root, ".data/other-dist")).toBe(true);
    writeFileSync(file("app/locks/page.tsx"), "changed");
    expect(buildIsStale(root)).toBe(true);
  });

  it("rebuilds when a source file was deleted (its directory changed)", () => {
    rmSync(file("app/locks/page.tsx"));
    expect(buildIsStale(root)).toBe(true);
  });

  it("ignores node_modules inside the inputs", () => {
    writeFileSync(file("app/node_modules/dep.js"), "x");
    age("app", 60);
    expect(buildIsStale(root)).toBe(false);
  });
});
