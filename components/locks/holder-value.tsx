"use client";

import { useState } from "react";
import { shortValue } from "@/components/ui/format";

/** What anonymous readers get instead of a value (app/api/_lib/redact.ts): already short. */
const DIGEST = /^sha1:[0-9a-f]{12}$/;

/** A lock value, shortened, with a button that copies it whole; a digest is shown whole. */
export function HolderValue({ value }: { value: string | null }) {
  const [copied, setCopied] = useState(false);
  if (value === null) return <span className="muted">—</span>;

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 1_500);
    } catch {
      // No clipboard permission (e.g. plain http on a remote host): the title still shows the value.
      setCopied(false);
    }
  };

  return (
    <span className="holder-value">
      {DIGEST.test(value) ? (
        <code title="A digest of the value: sign in to see the value itself">{value}</code>
      ) : (
        <code title={value}>{shortValue(value)}</code>
      )}
      <button
        type="button"
        className="icon-button"
        onClick={copy}
        aria-label={`Copy value ${value}`}
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}
