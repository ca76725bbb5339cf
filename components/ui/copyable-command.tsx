"use client";

import { useState } from "react";

/** A command for an operator to run elsewhere, whole and selectable, with a button that copies it. */
export function CopyableCommand({ command, label }: { command: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setCopied(true);
      setTimeout(() => setCopied(false), 1_500);
    } catch {
      // No clipboard permission (plain http on a remote host): the command stays selectable.
      setCopied(false);
    }
  };
  return (
    <p className="copyable-command">
      <code aria-label={label}>{command}</code>{" "}
      <button type="button" className="icon-button" onClick={copy} aria-label={`Copy ${label}`}>
        {copied ? "Copied" : "Copy"}
      </button>
    </p>
  );
}
