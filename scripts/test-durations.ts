/**
 * The slowest vitest files of the last run, by project, from .data/vitest-report.json (written by
 * every `vitest run`): `npx tsx scripts/test-durations.ts [count]`.
 */
import { readFileSync } from "node:fs";

interface FileResult {
  readonly name: string;
  readonly startTime: number;
  readonly endTime: number;
  readonly assertionResults: ReadonlyArray<{ readonly status: string }>;
}

const report = JSON.parse(readFileSync(".data/vitest-report.json", "utf8")) as {
  readonly numTotalTests: number;
  readonly startTime: number;
  readonly testResults: readonly FileResult[];
};
const count = Number(process.argv[2] ?? 25);
const files = report.testResults
  .map((file) => ({
    file: file.name.replace(`${process.cwd()}/`, ""),
    seconds: (file.endTime - file.startTime) / 1000,
    tests: file.assertionResults.length,
  }))
  .sort((a, b) => b.seconds - a.seconds);
const lastEnd = Math.max(...report.testResults.map((file) => file.endTime));
console.log(
  `${report.numTotalTests} tests in ${files.length} file runs; wall ${((lastEnd - report.startTime) / 1000).toFixed(0)} s; sum of file times ${files.reduce((sum, file) => sum + file.seconds, 0).toFixed(0)} s`,
);
for (const { file, seconds, tests } of files.slice(0, count))
  console.log(`${seconds.toFixed(1).padStart(7)} s  ${String(tests).padStart(4)} tests  ${file}`);
