/**
 * An owner's labels in words (pure, browser-safe): the headline an operator recognises first, every
 * label for a tooltip, and who holds a lock being released (issue 39 item 6: a tombstoned row keeps
 * its holder's name).
 */
import { visibleText } from "@/components/ui/visible-text";

/** The labels an operator recognises first, in this order; the rest stay in the tooltip. */
const HEADLINE_LABELS = ["service", "host", "pid"] as const;

/**
 * "billing / worker-7 / 4242", or the first labels when none of service/host/pid is set. Labels
 * are shown with invisible and bidi characters escaped (visibleText), here and below.
 */
export function ownerHeadline(labels: Record<string, string>): string {
  const headline = HEADLINE_LABELS.map((name) => labels[name]).filter(
    (value) => value !== undefined,
  );
  if (headline.length > 0) return headline.map(visibleText).join(" / ");
  const others = Object.values(labels).slice(0, 3);
  return others.length > 0 ? others.map(visibleText).join(" / ") : "no labels";
}

/** Every label, one "name=value" per line, for a tooltip. */
export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${visibleText(name)}=${visibleText(value)}`)
    .join("\n");
}

/**
 * Who holds a tombstoned ("releasing") lock. The tombstone names the replaced holder's session, not
 * its labels: they come from that session's heartbeat, which a holder that stopped no longer
 * writes. `labels` null or empty: the name is not known, and the words say so rather than guess.
 */
export function releasingHolderText(labels: Record<string, string> | null): string {
  return labels !== null && Object.keys(labels).length > 0
    ? `held by a holder being released: ${ownerHeadline(labels)}`
    : "held by a holder being released (name unknown)";
}
