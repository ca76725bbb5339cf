/** Prints the top self-time functions of a .cpuprofile (what DevTools' "Bottom-up" view shows). */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const [file, limitArg = "30"] = process.argv.slice(2);
if (!file) throw new Error("usage: tsx bench/profile-top.ts <file.cpuprofile> [limit]");
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[] };
const selfHits = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  total += hits;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^.*\/main\//, "")}:${lineNumber + 1}`;
  selfHits.set(where, (selfHits.get(where) ?? 0) + hits);
}
const top = [...selfHits].sort((a, b) => b[1] - a[1]).slice(0, Number(limitArg));
for (const [where, hits] of top)
  console.log(`${((hits * 100) / total).toFixed(1).padStart(5)}%  ${where}`);
