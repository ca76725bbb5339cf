import type { Metadata } from "next";
import { ReadGate } from "../../_shell/read-gate";
import { HolderSessionClient } from "./client";

interface HolderSessionPageProps {
  params: Promise<{ id: string }>;
}

export async function generateMetadata({ params }: HolderSessionPageProps): Promise<Metadata> {
  return { title: `Holder session ${(await params).id.slice(0, 8)}` };
}

export default async function HolderSessionPage({ params }: HolderSessionPageProps) {
  const { id } = await params;
  return (
    <ReadGate>
      <HolderSessionClient sessionId={id} />
    </ReadGate>
  );
}
