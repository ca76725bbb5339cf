import type { LockState } from "@/lib/api";

const LOCK_STATE_HINT: Record<LockState, string> = {
  held: "One value on a majority of nodes",
  partial: "No value reaches a majority of nodes",
  conflict: "Different values on different nodes",
  releasing:
    "Force-released: a tombstone keeps it held until its holder acknowledges or its validity ends",
};

const LOCK_STATE_TEXT: Partial<Record<LockState, string>> = { releasing: "being released" };

export function LockStateBadge({ state }: { state: LockState }) {
  return (
    <span className={`badge badge-${state}`} title={LOCK_STATE_HINT[state]}>
      {LOCK_STATE_TEXT[state] ?? state}
    </span>
  );
}
