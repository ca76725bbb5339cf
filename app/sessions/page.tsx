import type { Metadata } from "next";
import { ReadGate } from "../_shell/read-gate";
import { HolderSessionsClient } from "./client";

export const metadata: Metadata = { title: "Holder sessions" };

export default function HolderSessionsPage() {
  return (
    <ReadGate>
      <HolderSessionsClient />
    </ReadGate>
  );
}
