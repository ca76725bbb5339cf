import type { LockFormat, LockOwner } from "@/lib/api/locks";
import { visibleText } from "@/components/ui/visible-text";

const FORMAT_NAMES: Record<LockFormat, string> = {
  string: "node-redlock/redsync string",
  "redisson-hash": "Redisson hash",
  tombstone: "force-release tombstone",
};

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

/** The text shown for an owner: its headline labels, or "unknown — <format>" for other libraries. */
export function ownerText(owner: LockOwner): string {
  return owner.kind === "labelled"
    ? ownerHeadline(owner.labels)
    : `unknown — ${FORMAT_NAMES[owner.format]}`;
}

/** Who holds a lock, compact: for a table cell or a sentence. */
export function LockOwnerLabel({ owner }: { owner: LockOwner }) {
  if (owner.kind === "unknown") {
    return (
      <span
        className="muted"
        title="No owner entry for this value: another library holds it (or owner metadata is off)"
      >
        {ownerText(owner)}
      </span>
    );
  }
  return (
    <span className="owner" title={labelsText(owner.labels)}>
      {ownerText(owner)}
    </span>
  );
}

/** "3.0 MB", "512 B": a cut label's original size, in decimal units. */
export function sizeText(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  const [size, unit] = bytes < 1_000_000 ? [bytes / 1_000, "kB"] : [bytes / 1_000_000, "MB"];
  return `${size.toFixed(1)} ${unit}`;
}

/**
 * All labels of an owner as a definition list (lock detail, force-release dialog). A label the
 * console cut (`truncated`: name → original size) ends in "… (truncated, 3.0 MB)".
 */
export function OwnerLabels({
  labels,
  truncated,
}: {
  labels: Record<string, string>;
  truncated?: Record<string, number>;
}) {
  const entries = Object.entries(labels);
  if (entries.length === 0) return <span className="muted">no labels</span>;
  return (
    <span className="owner-labels">
      {entries.map(([name, value]) => (
        <span key={name} className="owner-label">
          <span className="muted">{visibleText(name)}=</span>
          {visibleText(value)}
          {truncated?.[name] !== undefined && (
            <span className="muted">… (truncated, {sizeText(truncated[name])})</span>
          )}
        </span>
      ))}
    </span>
  );
}
