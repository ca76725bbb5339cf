/**
 * The probe a semaphore (and a read-write lock's readers) runs before each attempt: one script per
 * node says which of its slot keys are free there and what the guard records, so an attempt costs
 * the same whatever the number of slots: one probe, then one lock on one free slot (guard.ts).
 */
import type { Guarded } from "./acquire";
import type { Core } from "./core";
import { ResourceLockedError } from "./errors";
import type { Guard } from "./guard";
import { quorumSize, runAttempt, type Attempt, type NodeAnswer } from "./quorum";
import { defineScript } from "./script";

/** Most slots (permits, reader slots) one name may have: the probe reads each on every node. */
export const MAX_SLOTS = 1_000;

/**
 * KEYS: the guard, ARGV[1] slot keys, then blockers (any one present: nothing is free).
 * Reply {recorded guard or "", one char per slot: "1" free, "0" held}.
 */
export const PROBE = defineScript<readonly [slotCount: number], [recorded: string, free: string]>(`
local slots = tonumber(ARGV[1])
local recorded = redis.call("get", KEYS[1]) or ""
for i = slots + 2, #KEYS do
  if redis.call("exists", KEYS[i]) == 1 then return {recorded, string.rep("0", slots)} end
end
local free = {}
for i = 2, slots + 1 do
  free[#free + 1] = redis.call("exists", KEYS[i]) == 1 and "0" or "1"
end
return {recorded, table.concat(free)}
`);

/** A node votes for when it has a free slot; the recorded guard rides along in the reply. */
const judgeProbe = (reply: unknown): NodeAnswer => {
  const free = Array.isArray(reply) ? String(reply[1]) : "";
  return free.includes("1")
    ? { vote: "for", reply }
    : { vote: "against", reply, error: new ResourceLockedError("No free slot on this node.") };
};

/**
 * Probes the slots on every node and lists those free on every node that answered for, in random
 * order (so that contenders spread over the free slots). Throws `guarded.mismatch` when more than a
 * minority records another shape.
 */
export async function chooseSlot(
  core: Core,
  slots: readonly string[],
  guard: Guard,
  blockers: readonly string[],
  guarded: Pick<Guarded, "mismatch">,
  nodeTimeoutMs: number,
): Promise<{ attempt: Attempt; resources: string[] }> {
  const attempt = await runAttempt(core.nodes, {
    script: PROBE,
    keys: [guard.key, ...slots, ...blockers],
    args: [slots.length],
    timeoutMs: nodeTimeoutMs,
    judge: judgeProbe,
    decideEarly: true,
    decideOnMajorityAnswered: false,
    gateRestarts: false,
  });
  const replies = attempt.answers.flatMap((answer) =>
    Array.isArray(answer?.reply) ? [answer.reply as [string, string]] : [],
  );
  const other = replies.filter(([recorded]) => recorded !== "" && recorded !== guard.expected);
  if (other.length > core.nodes.length - quorumSize(core.nodes.length))
    throw guarded.mismatch(other[0]![0]);
  if (!attempt.won) return { attempt, resources: [] };
  const voters = replies.filter(([, free]) => free.includes("1"));
  const free = slots.filter((_, index) => voters.every(([, flags]) => flags[index] === "1"));
  return { attempt, resources: shuffled(free) };
}

/** In random order (Fisher-Yates), so that contenders who probed together try different slots. */
function shuffled<T>(items: T[]): T[] {
  for (let index = items.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [items[index], items[other]] = [items[other]!, items[index]!];
  }
  return items;
}

/** Throws a TypeError unless `name` can name a semaphore or read-write lock (its keys' hash tag). */
export function assertSlotName(name: string): void {
  if (typeof name !== "string" || name.length === 0 || name.includes("}"))
    throw new TypeError(
      `A semaphore or read-write lock name is a non-empty string without "}" (it becomes the keys' hash tag {name}), got ${JSON.stringify(name)}.`,
    );
}

/** Throws a RangeError unless `count` is a whole number of slots from 1 to MAX_SLOTS. */
export function assertSlotCount(count: number, what: string): void {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SLOTS)
    throw new RangeError(`${what} must be a whole number from 1 to ${MAX_SLOTS}, got ${count}.`);
}
