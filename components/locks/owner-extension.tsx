"use client";

import { ownerExtension, type OwnerInfo } from "@/lib/api";
import { useServerNow } from "@/hooks/use-server-now";

/**
 * "extended 3×" (a 1.x owner entry counted them) or "extended" (held longer than the TTL it was
 * acquired with), on the server's clock; nothing when no extension shows.
 */
export function OwnerExtension({ owner, prefix = "" }: { owner: OwnerInfo; prefix?: string }) {
  const nowMs = useServerNow(1_000);
  const text = nowMs === null ? null : ownerExtension(owner, nowMs);
  if (text === null) return null;
  return (
    <span className="muted" title="The holder extended its lock since acquiring it">
      {prefix}
      {text}
    </span>
  );
}
