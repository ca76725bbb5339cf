/**
 * A transition's detail cell, in words (issue 41 item 4): why a hold expired (the server's
 * `summary`, from what it read of the holder's session) with what to do about it, what a gap hid,
 * who force-released, and a possible overlap. The value comes last, shortened.
 */
import { formatDurationWords, formatTimestampIn, shortValue } from "@/components/ui/format";
import type { TimeZoneChoice } from "@/components/ui/format";
import { visibleText } from "@/components/ui/visible-text";
import type { ExpiryCause, Transition } from "@/lib/api";

/** What an operator does next, per what the console read of an expired holder's session. */
const EXPIRY_ADVICE: Partial<Record<ExpiryCause["session"], string>> = {
  gone: "The lock is free again; check the holder's logs for why it stopped.",
  unresponsive:
    "Find the paused process (the owner beside) and resume or stop it: until it notices, it may still act as the holder.",
  alive:
    "Its extensions came too late: lengthen the TTL, or extend earlier (autoExtend / using()).",
};

/**
 * Why a hold expired, in words: the server's sentence when it read the holder's session, without
 * its "expired while held: " (the row's badge says it already).
 */
export function expiryWords(transition: Transition): string {
  const why =
    transition.summary?.replace(/^expired while held: /, "") ??
    "the console did not read the holder's session, so it cannot tell whether it crashed, paused or failed to extend";
  return `Why: ${why}`;
}

/** What a gap hid, in words: how long, from when to when, and why history has one. */
export function gapWords(transition: Transition, zone: TimeZoneChoice): string {
  if (transition.since === null)
    return "not watched for a while: changes to every lock then are unknown";
  return `not watched for ${formatDurationWords(transition.at - transition.since)} (${formatTimestampIn(transition.since, zone)} to ${formatTimestampIn(transition.at, zone).slice(11)}): a lock node was being listed again (the console started, or a node reconnected, restarted or dropped notifications), so what happened to any lock then is unknown. A lock's page shows its state now.`;
}

function OverlapDetail({ transition }: { transition: Transition }) {
  const overlap = transition.possibleOverlap!;
  const service = overlap.previousOwner?.labels.service;
  return (
    <span data-testid="possible-overlap" data-reason={overlap.reason}>
      <span className="badge badge-conflict">possible overlap</span>{" "}
      {transition.summary ?? `the previous holder never confirmed it stopped (${overlap.reason})`}
      {service !== undefined && ` (previous holder: ${visibleText(service)})`}
    </span>
  );
}

export function TransitionDetail({
  transition,
  zone,
}: {
  transition: Transition;
  zone: TimeZoneChoice;
}) {
  const at = (epochMs: number) => formatTimestampIn(epochMs, zone);
  const parts: React.ReactNode[] = [];
  if (transition.kind === "expired") {
    const advice = transition.cause && EXPIRY_ADVICE[transition.cause.session];
    parts.push(
      <span key="cause" data-testid="expiry-cause" data-session={transition.cause?.session}>
        {expiryWords(transition)}
      </span>,
    );
    if (advice) parts.push(advice);
  } else if (transition.kind === "gap") {
    parts.push(<span data-testid="gap-reason">{gapWords(transition, zone)}</span>);
  } else if (transition.summary && !transition.possibleOverlap) {
    parts.push(transition.summary);
  }
  if ((transition.kind === "partial" || transition.kind === "conflict") && transition.since)
    parts.push(`since ${at(transition.since)} on ${transition.nodeIds.join(", ")}`);
  if (transition.kind === "evicted" && !transition.summary)
    parts.push(`on ${transition.nodeIds.join(", ")}`);
  if (transition.by && !transition.summary)
    parts.push(`by ${transition.by}${transition.reason ? `: ${transition.reason}` : ""}`);
  if (transition.possibleOverlap)
    parts.push(<OverlapDetail key="overlap" transition={transition} />);
  else if (transition.afterExpired) {
    // A transition kept from before possibleOverlap (a state store's history).
    const service = transition.afterExpired.owner?.labels.service;
    const previous = service !== undefined ? visibleText(service) : "the previous holder";
    parts.push(
      `${previous}'s hold expired at ${at(transition.afterExpired.expiredAt)} without a release: if it was only paused, both may have acted as holders (possible overlap)`,
    );
  }
  if (transition.value)
    parts.push(
      <code key="value" title={transition.value}>
        {shortValue(transition.value)}
      </code>,
    );
  return (
    <>
      {parts.map((part, index) => (
        <div key={index} className={index === 0 ? undefined : "muted"}>
          {part}
        </div>
      ))}
    </>
  );
}
