import type { Metadata } from "next";
import { ReadGate } from "../../_shell/read-gate";
import { LockDetailClient } from "./client";
import { resourceFromSegments } from "./resource-param";

interface LockPageProps {
  params: Promise<{ resource: string[] }>;
}

export async function generateMetadata({ params }: LockPageProps): Promise<Metadata> {
  return { title: resourceFromSegments((await params).resource) };
}

export default async function LockPage({ params }: LockPageProps) {
  const resource = resourceFromSegments((await params).resource);
  return (
    <ReadGate>
      <LockDetailClient resource={resource} />
    </ReadGate>
  );
}
