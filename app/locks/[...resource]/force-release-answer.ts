/**
 * The force-release's answer in words (issue 39 item 6): what happened, until when nobody else
 * gets the lock (`reservedUntil`) or until when two processes may act as holders
 * (`overlapPossibleUntil`), and whether the explicit delete-now is the way on (a tombstone already
 * stands: a second force-release answers "unchanged"). Pure; times on the console's clock.
 */
import { formatClock } from "@/components/ui/format";
import type { ForceReleaseResponse } from "@/lib/api";

type Answer = Pick<
  ForceReleaseResponse,
  | "mode"
  | "resource"
  | "tombstonedCount"
  | "deletedCount"
  | "reservedUntil"
  | "overlapPossibleUntil"
  | "majority"
  | "nodes"
>;

function what(answer: Answer): string {
  const of = `of ${answer.nodes.length} nodes`;
  const reserved = answer.reservedUntil;
  switch (answer.mode) {
    case "tombstoned":
      return `tombstoned on ${answer.tombstonedCount} ${of}: nobody else gets it before its holder has stopped${
        reserved === null ? "" : `, at most until ${formatClock(reserved)}`
      }.`;
    case "deleted":
      return `deleted on ${answer.deletedCount} ${of}${
        answer.overlapPossibleUntil === null
          ? "."
          : `: two processes may act as holders until ${formatClock(answer.overlapPossibleUntil)}.`
      }`;
    case "unchanged":
      return reserved === null
        ? "nothing was written."
        : `already reserved until ${formatClock(reserved)}: nothing was written (a second force-release never lengthens a reservation).`;
    case "absent":
      return "no node held it: nothing to release.";
  }
}

/** The headline of the answer: "Force-released orders:42: tombstoned on 5 of 5 nodes: …". */
export function answerHeadline(answer: Answer): string {
  const minority = answer.majority
    ? ""
    : " The value stood on fewer than a majority of the nodes: its holder's library counts that as a lost lock.";
  return `Force-released ${answer.resource}: ${what(answer)}${minority}`;
}

/** A standing tombstone is lifted only by the explicit delete-now: offered with the answer. */
export function offersDeleteNow(answer: Pick<Answer, "mode" | "reservedUntil">): boolean {
  return answer.mode === "unchanged" && answer.reservedUntil !== null;
}
