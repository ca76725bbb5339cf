import type { Metadata } from "next";
import { Suspense } from "react";
import { ReadGate } from "../_shell/read-gate";
import { EventsClient } from "./client";

export const metadata: Metadata = { title: "Events" };

export default function EventsPage() {
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <ReadGate>
        <EventsClient />
      </ReadGate>
    </Suspense>
  );
}
