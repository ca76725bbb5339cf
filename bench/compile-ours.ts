/**
 * Transpiles lib/redlock to plain ES modules with TypeScript, the way the peers ship (tsc output),
 * so all three run as compiled JavaScript. Under tsx, our source would go through esbuild with
 * `keepNames`, which wraps every closure in a `__name()` call: ~15% more CPU per operation that no
 * production build (tsc, Next.js/SWC) has. BENCH_OURS=tsx measures the source through tsx instead.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const SOURCE_DIR = path.join(REPO_ROOT, "lib/redlock");
const OUT_DIR = path.join(REPO_ROOT, ".data/bench/redlock-js");

/**
 * Writes `outDir`/*.mjs (default .data/bench/redlock-js) from `sourceDir` (default lib/redlock) and
 * returns the URL of its index module.
 */
export function compileOurs(sourceDir = SOURCE_DIR, outDir = OUT_DIR): string {
  rmSync(outDir, { recursive: true, force: true });
  const sources = readdirSync(sourceDir, { recursive: true, encoding: "utf8" }).filter(
    (file) =>
      file.endsWith(".ts") &&
      !file.endsWith(".test.ts") &&
      !file.endsWith(".d.ts") &&
      !file.startsWith("dist") &&
      !file.startsWith("node_modules"),
  );
  for (const file of sources) {
    const { outputText } = ts.transpileModule(readFileSync(path.join(sourceDir, file), "utf8"), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        isolatedModules: true,
      },
      fileName: file,
    });
    // Relative specifiers have no extension in the source (bundler resolution); Node needs one,
    // and a folder's index named.
    const folder = path.join(sourceDir, path.dirname(file));
    const withExtensions = outputText.replace(
      /(from\s+|import\s*\(\s*)"(\.\.?\/[^"]+)"/g,
      (_match, prefix: string, specifier: string) =>
        existsSync(path.join(folder, specifier, "index.ts"))
          ? `${prefix}"${specifier}/index.mjs"`
          : `${prefix}"${specifier}.mjs"`,
    );
    const outFile = path.join(outDir, file.replace(/\.ts$/, ".mjs"));
    mkdirSync(path.dirname(outFile), { recursive: true });
    writeFileSync(outFile, withExtensions);
  }
  return pathToFileURL(path.join(outDir, "index.mjs")).href;
}
