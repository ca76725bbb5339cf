import type { Metadata } from "next";
import { Suspense } from "react";
import { ReadGate } from "../_shell/read-gate";
import { AuditClient } from "./client";

export const metadata: Metadata = { title: "Audit" };

export default function AuditPage() {
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <ReadGate>
        <AuditClient />
      </ReadGate>
    </Suspense>
  );
}
