import type { TransitionKind } from "@/lib/api";

export const TRANSITION_TEXT: Record<TransitionKind, { label: string; hint: string }> = {
  acquired: { label: "acquired", hint: "A value reached a majority of nodes: a new holder" },
  extended: { label: "extended", hint: "The holder moved its expiry later on a majority" },
  released: { label: "released", hint: "The holder deleted its value: a clean release" },
  expired: {
    label: "expired while held",
    hint: "The value ran out instead of being released: the holder crashed, hung or paused past its TTL",
  },
  "force-released": {
    label: "force-released",
    hint: "An operator force-released it from the console: its value was deleted, or replaced by a tombstone",
  },
  releasing: {
    label: "being released",
    hint: "A force-release's tombstone keeps everyone out until the holder acknowledges or its validity ends",
  },
  "release-acknowledged": {
    label: "released by the holder",
    hint: "The holder's library acknowledged the force-release (its routine settled) and deleted the tombstone",
  },
  "reservation-ended": {
    label: "reservation ended",
    hint: "The tombstone ran out unacknowledged: the replaced value's validity is over, the lock is free",
  },
  "reservation-lifted": {
    label: "reservation lifted",
    hint: "An operator force-released the tombstone itself: the holder may not have stopped",
  },
  evicted: {
    label: "evicted",
    hint: "A node's maxmemory policy deleted the lock key: that node no longer protects the lock",
  },
  conflict: { label: "conflict", hint: "Different values on different nodes for over a second" },
  partial: { label: "partial", hint: "A value on some nodes but no majority for over a second" },
  gap: {
    label: "gap",
    hint: "The console could not see every change then: what happened is unknown",
  },
};

export function TransitionKindBadge({ kind }: { kind: TransitionKind }) {
  return (
    <span className={`badge badge-transition-${kind}`} title={TRANSITION_TEXT[kind].hint}>
      {TRANSITION_TEXT[kind].label}
    </span>
  );
}
