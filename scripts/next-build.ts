/**
 * Reuses the last `next build` while it is up to date: `npm start` and the e2e stack both call
 * `buildIfStale()`, so a restart takes seconds and only a source change costs a build.
 * Up to date = `<distDir>/BUILD_ID` is newer than every build input (files and directories: a
 * deleted or renamed file changes its directory's mtime). distDir follows next.config.js:
 * NEXT_DIST_DIR, else `.next`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** Next's CLI, run with this Node directly (not through npx), so signals reach the server itself. */
export const NEXT_CLI = createRequire(import.meta.url).resolve("next/dist/bin/next");

const BUILD_INPUTS = [
  "app",
  "components",
  "hooks",
  "lib",
  "public",
  "instrumentation.ts",
  "proxy.ts",
  "next.config.js",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
];
const SKIPPED_DIRS = new Set(["node_modules", ".next", ".data"]);

const distDirOf = (env: NodeJS.ProcessEnv) => env.NEXT_DIST_DIR || ".next";

function newestMtimeMs(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(entry)
    .filter((name) => !SKIPPED_DIRS.has(name))
    .reduce(
      (newest, name) => Math.max(newest, newestMtimeMs(path.join(entry, name))),
      stats.mtimeMs,
    );
}

/** A build input changed after the last build in `distDir` (or there is none); paths relative to `root`. */
export function buildIsStale(root = process.cwd(), distDir = ".next"): boolean {
  const buildId = path.resolve(root, distDir, "BUILD_ID");
  if (!existsSync(buildId)) return true;
  const builtAtMs = statSync(buildId).mtimeMs;
  return BUILD_INPUTS.some((input) => newestMtimeMs(path.join(root, input)) > builtAtMs);
}

/** Runs `next build` when the last one is stale; returns the build's exit status (0 when reused). */
export function buildIfStale(env: NodeJS.ProcessEnv, log: (line: string) => void): number {
  const distDir = distDirOf(env);
  if (!buildIsStale(process.cwd(), distDir)) {
    log(`Reusing the last build: no source changed since ${distDir}/BUILD_ID.`);
    return 0;
  }
  log("Sources changed since the last build: running next build.");
  const build = spawnSync(process.execPath, [NEXT_CLI, "build"], { stdio: "inherit", env });
  return build.status ?? 1;
}
