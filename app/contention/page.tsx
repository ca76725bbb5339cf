import type { Metadata } from "next";
import { ReadGate } from "../_shell/read-gate";
import { ContentionClient } from "./client";

export const metadata: Metadata = { title: "Contention" };

export default function ContentionPage() {
  return (
    <ReadGate>
      <ContentionClient />
    </ReadGate>
  );
}
