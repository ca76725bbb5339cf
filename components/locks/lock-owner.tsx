import type { LockFormat, LockOwner } from "@/lib/api";
import { visibleText } from "@/components/ui/visible-text";
import { labelsText, ownerHeadline, releasingHolderText } from "./owner-text";

export { labelsText, ownerHeadline };

const FORMAT_NAMES: Record<LockFormat, string> = {
  string: "node-redlock/redsync string",
  "redisson-hash": "Redisson hash",
  tombstone: "force-release tombstone",
  "redis-semaphore": "redis-semaphore (read-only)",
};

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

/**
 * Who holds a tombstoned ("releasing") lock: the replaced holder's name, from the labels of the
 * session its tombstone names, or "name unknown" (owner-text.ts's releasingHolderText).
 */
export function ReleasingHolderLabel({ labels }: { labels: Record<string, string> | null }) {
  const known = labels !== null && Object.keys(labels).length > 0;
  return (
    <span
      className={known ? "owner" : "muted"}
      title={
        known
          ? labelsText(labels)
          : "The tombstone names the holder's session; no heartbeat of it (which carries the name) was found"
      }
    >
      {releasingHolderText(labels)}
    </span>
  );
}
