/**
 * `npx tsx bench/heap-top.ts <file>.heapsnapshot [rows]`: where a heap snapshot's bytes go, by
 * node type and constructor (self sizes, so every byte counts once), largest first. Strings are
 * split by kind (flat, sliced, cons) since a sliced or concatenated string keeps its parent alive.
 * Write a snapshot with MEMORY_HEAP_SNAPSHOT=<file> on bench/memory-child.ts.
 */
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error("usage: heap-top.ts <file>.heapsnapshot [rows]");
const parsed = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
const fields = parsed.snapshot.meta.node_fields;
const types = parsed.snapshot.meta.node_types[0];
const at = (name: string) => fields.indexOf(name);
const [typeAt, nameAt, sizeAt] = [at("type"), at("name"), at("self_size")];

const groups = new Map<string, { bytes: number; count: number }>();
const { nodes, strings } = parsed;
for (let offset = 0; offset < nodes.length; offset += fields.length) {
  const type = types[nodes[offset + typeAt]!]!;
  const name = strings[nodes[offset + nameAt]!]!;
  const group = type === "string" || type === "number" ? type : `${type}: ${name.slice(0, 60)}`;
  const entry = groups.get(group) ?? { bytes: 0, count: 0 };
  entry.bytes += nodes[offset + sizeAt]!;
  entry.count += 1;
  groups.set(group, entry);
}
const total = [...groups.values()].reduce((sum, group) => sum + group.bytes, 0);
const top = [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(rowsArg ?? 30));
process.stdout.write(`total ${(total / 1e6).toFixed(1)} MB\n`);
for (const [group, { bytes, count }] of top)
  process.stdout.write(
    `${(bytes / 1e6).toFixed(1).padStart(8)} MB ${String(count).padStart(9)}  ${group}\n`,
  );
