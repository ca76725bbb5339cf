/**
 * The library as its users get it: `npm pack` of the workspace (its prepack builds it), installed with
 * ioredis alone into a throwaway project outside the repository, then node-redlock's README usage
 * run there through `require` and through `import` against five real masters, the tarball checked by
 * @arethetypeswrong/cli, and a consumer compiled by tsc under two module resolutions.
 */
import { execFile } from "node:child_process";
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedUrls } from "../masters";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../..");
const PACKAGE_DIR = path.join(REPO, "lib/redlock");
const FIXTURES = path.join(import.meta.dirname, "fixtures");
const require = createRequire(import.meta.url);
const installedVersion = (name: string) =>
  (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")) as { version: string })
    .version;

let project: string;
let tarball: string;

beforeAll(async () => {
  // Outside the repository, so nothing resolves from the workspace's own node_modules.
  project = mkdtempSync(path.join(os.tmpdir(), "redlock-consumer-"));
  // prepack builds the package first (its log shares stdout), so find the tarball by its file.
  await run("npm", ["pack", "--pack-destination", project], { cwd: PACKAGE_DIR });
  const packed = readdirSync(project).filter((file) => file.endsWith(".tgz"));
  expect(packed).toHaveLength(1);
  tarball = path.join(project, packed[0]!);
  writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "redlock-consumer", version: "1.0.0", private: true }),
  );
  // Versions the repository already installed, so the registry cache answers.
  await run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      tarball,
      `ioredis@${installedVersion("ioredis")}`,
      `@types/node@${installedVersion("@types/node")}`,
    ],
    { cwd: project },
  );
}, 180_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("the packed library", () => {
  it("ships only the build, its types, README and CHANGELOG", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball]);
    // The `protocol` subpath (issue 39) ships its own build and declarations.
    expect(stdout.trim().split("\n").sort()).toEqual([
      "package/CHANGELOG.md",
      "package/README.md",
      "package/dist/index.cjs",
      "package/dist/index.d.cts",
      "package/dist/index.d.ts",
      "package/dist/index.js",
      "package/dist/protocol.cjs",
      "package/dist/protocol.d.cts",
      "package/dist/protocol.d.ts",
      "package/dist/protocol.js",
      "package/package.json",
    ]);
  });

  it.each(["readme-usage.cjs", "readme-usage.mjs"])(
    "runs node-redlock's README usage unchanged (%s) against five masters",
    async (program) => {
      copyFileSync(path.join(FIXTURES, program), path.join(project, program));
      const { stdout } = await run(process.execPath, [program], {
        cwd: project,
        env: { ...process.env, REDIS_URLS: sharedUrls().join(",") },
      });
      const result = JSON.parse(stdout.trim()) as { ok: boolean; module: string; value: string };
      expect(result).toEqual({
        ok: true,
        module: program.endsWith(".cjs") ? "object" : "undefined",
        // The 2.x value at defaults: the 40-hex token, then the owner (lib/redlock/value.ts).
        value: expect.stringMatching(/^rl1:[0-9a-f]{40}:\{"acquiredAt":\d+,"ttlMs":5000,"labels":/),
      });
    },
    60_000,
  );

  it("has types that resolve for every consumer (@arethetypeswrong/cli)", async () => {
    const attw = path.join(REPO, "node_modules/.bin/attw");
    const { stdout } = await run(attw, [tarball, "--format", "json"]);
    const report = JSON.parse(stdout) as { analysis: { problems: unknown[] } };
    expect(report.analysis.problems).toEqual([]);
  }, 60_000);

  it.each([
    { module: "node16", moduleResolution: "node16" },
    { module: "esnext", moduleResolution: "bundler" },
  ])(
    "compiles a TypeScript consumer with moduleResolution $moduleResolution",
    async (options) => {
      copyFileSync(path.join(FIXTURES, "consumer.ts"), path.join(project, "consumer.ts"));
      const tsc = path.join(REPO, "node_modules/typescript/bin/tsc");
      await expect(
        run(
          process.execPath,
          [
            tsc,
            "--noEmit",
            "--strict",
            "--skipLibCheck",
            "false",
            "--target",
            "es2022",
            "--module",
            options.module,
            "--moduleResolution",
            options.moduleResolution,
            "--types",
            "node",
            "consumer.ts",
          ],
          { cwd: project },
        ),
      ).resolves.toBeDefined();
    },
    60_000,
  );
});
