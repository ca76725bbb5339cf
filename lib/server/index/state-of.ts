import type { LockState } from "@/lib/api";

/** What each node holds of a key: a value, null (absent) or undefined (unreachable). */
type ValueReads = ReadonlyArray<{ readonly value: string } | null | undefined>;

/** held | partial | conflict from what the reachable nodes hold; null when none holds anything. */
export function stateOf(reads: ValueReads, quorumSize: number): LockState | null {
  let first: string | undefined;
  let holders = 0;
  for (const read of reads) {
    if (!read) continue;
    if (first === undefined) first = read.value;
    else if (read.value !== first) return "conflict";
    holders += 1;
  }
  if (first === undefined) return null;
  return holders >= quorumSize ? "held" : "partial";
}
