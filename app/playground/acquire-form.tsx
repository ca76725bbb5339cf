"use client";

import { useState, type FormEvent } from "react";
import { MAX_TTL_MS, MIN_TTL_MS } from "@/lib/api";

/** One resource per line; blank lines ignored. */
export function parseResources(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

interface AcquireFormProps {
  disabled: boolean;
  onAcquire: (resources: string[], ttlMs: number, fencing: boolean) => void;
}

export function AcquireForm({ disabled, onAcquire }: AcquireFormProps) {
  const [resourcesText, setResourcesText] = useState("playground:demo");
  const [ttlMs, setTtlMs] = useState(10_000);
  const [fencing, setFencing] = useState(false);
  const resources = parseResources(resourcesText);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onAcquire(resources, ttlMs, fencing);
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Acquire a lock">
      <label>
        Resources (one per line)
        <textarea
          rows={3}
          value={resourcesText}
          onChange={(event) => setResourcesText(event.target.value)}
          spellCheck={false}
          required
        />
      </label>
      <label>
        TTL (ms)
        <input
          type="number"
          min={MIN_TTL_MS}
          max={MAX_TTL_MS}
          step={1}
          value={Number.isNaN(ttlMs) ? "" : ttlMs}
          onChange={(event) => setTtlMs(event.target.valueAsNumber)}
          required
        />
      </label>
      <label className="row" style={{ color: "var(--text)" }}>
        <input
          type="checkbox"
          checked={fencing}
          onChange={(event) => setFencing(event.target.checked)}
        />
        Fencing token (strictly increasing per resource)
      </label>
      <div>
        <button type="submit" className="primary" disabled={disabled || resources.length === 0}>
          Acquire
        </button>
      </div>
    </form>
  );
}
