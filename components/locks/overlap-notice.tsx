import { formatTimestamp } from "@/components/ui/format";
import type { Transition } from "@/lib/api";

/**
 * On the lock page: the lock's latest acquisition may overlap its previous holder, which never
 * confirmed it stopped (`possibleOverlap`), said above the timeline so it is not lost in the rows.
 */
export function OverlapNotice({ transitions }: { transitions: readonly Transition[] }) {
  const latest = transitions.find((transition) => transition.kind === "acquired");
  if (!latest?.possibleOverlap) return null;
  return (
    <p className="notice notice-warn" role="status" data-testid="overlap-notice">
      <strong>Possible overlap.</strong> The latest acquisition ({formatTimestamp(latest.at)}){" "}
      {latest.summary?.replace(/^acquired /, "came ") ??
        "came while the previous holder never confirmed it stopped: both may have acted as holders"}
      . Check the previous holder&apos;s work for double effects.
    </p>
  );
}
