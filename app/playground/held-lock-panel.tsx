"use client";

import Link from "next/link";
import { useState } from "react";
import { HolderValue } from "@/components/locks/holder-value";
import { ValidityCountdown } from "@/components/locks/validity-countdown";
import type { LockGrant } from "@/lib/api";
import { MAX_TTL_MS, MIN_TTL_MS } from "@/lib/api";

interface HeldLockPanelProps {
  lock: LockGrant;
  disabled: boolean;
  onExtend: (ttlMs: number) => void;
  onRelease: () => void;
}

/** The lock this page holds: its value, fencing token and remaining validity, with extend/release. */
export function HeldLockPanel({ lock, disabled, onExtend, onRelease }: HeldLockPanelProps) {
  const [ttlMs, setTtlMs] = useState(lock.ttlMs);
  return (
    <section className="card stack" aria-labelledby="held-lock-heading">
      <h2 id="held-lock-heading" style={{ margin: 0 }}>
        Held lock
      </h2>
      <dl className="facts">
        <dt>Resources</dt>
        <dd>
          {lock.resources.map((resource) => (
            <div key={resource}>
              <Link href={`/locks/${encodeURIComponent(resource)}`}>{resource}</Link>
            </div>
          ))}
        </dd>
        <dt>Value</dt>
        <dd>
          <HolderValue value={lock.value} />
        </dd>
        <dt>Fencing token</dt>
        <dd>{lock.fencingToken ?? <span className="muted">not requested</span>}</dd>
        <dt>Remaining validity</dt>
        <dd aria-label="Remaining validity">
          <ValidityCountdown validUntilMs={lock.expiration} />
        </dd>
      </dl>
      <div className="row">
        <label className="row">
          Extend to TTL (ms)
          <input
            type="number"
            min={MIN_TTL_MS}
            max={MAX_TTL_MS}
            value={Number.isNaN(ttlMs) ? "" : ttlMs}
            onChange={(event) => setTtlMs(event.target.valueAsNumber)}
            style={{ width: "8rem" }}
          />
        </label>
        <button
          type="button"
          onClick={() => onExtend(ttlMs)}
          disabled={disabled || Number.isNaN(ttlMs)}
        >
          Extend
        </button>
        <button type="button" onClick={onRelease} disabled={disabled}>
          Release
        </button>
      </div>
    </section>
  );
}
