import type { Metadata } from "next";
import { Suspense } from "react";
import { ReadGate } from "../_shell/read-gate";
import { LatencyClient } from "./client";

export const metadata: Metadata = { title: "Latency" };

export default function LatencyPage() {
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <ReadGate>
        <LatencyClient />
      </ReadGate>
    </Suspense>
  );
}
