/**
 * Semaphores and read-write locks in words (pure, browser-safe; issue 44): the list row's badge
 * and each member's line on the lock's page ("permit #2 of 3: held by billing / host-7 / 4242 for
 * 4.1 s more").
 */
import type { GroupMember, LockGroupDetail, LockRow } from "@/lib/api";
import { ownerHeadline } from "./owner-text";

/** The list row's badge: "semaphore: 2 of 3 permits in use", "read-write: 2 readers, no writer". */
export function groupBadgeText(row: Pick<LockRow, "semaphore" | "readWrite">): string | null {
  if (row.semaphore) {
    const { kind, permits, used } = row.semaphore;
    if (kind === "redis-semaphore")
      return `redis-semaphore (read-only): ${used} ${used === 1 ? "holder" : "holders"}`;
    return `semaphore: ${used} of ${permits} ${permits === 1 ? "permit" : "permits"} in use`;
  }
  if (row.readWrite) {
    const { readers, writer } = row.readWrite;
    return `read-write: ${readers} ${readers === 1 ? "reader" : "readers"}, ${writer ? "a writer" : "no writer"}`;
  }
  return null;
}

/** "permit #2", "the writer", "reader slot #0": a member by its place. */
export function memberName(member: Pick<GroupMember, "kind" | "index">): string {
  if (member.kind === "writer") return "the writer";
  return member.kind === "permit" ? `permit #${member.index}` : `reader slot #${member.index}`;
}

/** "4.1 s", "2 min 5 s": time left, to a tenth of a second below a minute. */
function secondsText(ms: number): string {
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** Who holds a member, and for how long more, in words; "free" when no node holds it. */
export function holderText(lock: LockRow | null): string {
  if (!lock) return "free";
  const who =
    lock.owner.kind === "labelled" ? ownerHeadline(lock.owner.labels) : "a holder of no labels";
  const state =
    lock.state === "held"
      ? "held"
      : lock.state === "releasing"
        ? "being released"
        : lock.state === "partial"
          ? "held on too few nodes"
          : "in conflict between nodes";
  const left =
    lock.validityMs === null
      ? ""
      : lock.validityMs < 0
        ? " with no expiry"
        : ` for ${secondsText(lock.validityMs)} more`;
  return `${state} by ${who}${left}`;
}

/** A member's line: "permit #2 of 3: held by billing / host-7 / 4242 for 4.1 s more". */
export function memberText(group: LockGroupDetail, member: GroupMember): string {
  const of =
    member.kind === "permit" && group.semaphore?.permits
      ? ` of ${group.semaphore.permits}`
      : member.kind === "reader" && group.readWrite
        ? ` of ${group.readWrite.readerSlots}`
        : "";
  return `${memberName(member)}${of}: ${holderText(member.lock)}`;
}
