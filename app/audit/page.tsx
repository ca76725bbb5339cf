import type { Metadata } from "next";
import { ReadGate } from "../_shell/read-gate";
import { AuditClient } from "./client";

export const metadata: Metadata = { title: "Audit" };

export default function AuditPage() {
  return (
    <ReadGate>
      <AuditClient />
    </ReadGate>
  );
}
