import type { Metadata } from "next";
import { Suspense } from "react";
import { ReadGate } from "../_shell/read-gate";
import { OverviewClient } from "./client";

export const metadata: Metadata = { title: "Locks" };

export default function OverviewPage() {
  return (
    // The filters come from the URL (useSearchParams): that part renders in the browser.
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <ReadGate>
        <OverviewClient />
      </ReadGate>
    </Suspense>
  );
}
