"use client";

import { useState } from "react";
import { shortValue } from "@/components/ui/format";

/** A lock value, shortened, with a button that copies it whole. */
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
      <code title={value}>{shortValue(value)}</code>
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
