import type { Metadata } from "next";
import { ReadGate } from "../../_shell/read-gate";
import { LockDetailClient } from "./client";
import { resourceFromParam } from "./resource-param";

interface LockPageProps {
  params: Promise<{ resource: string }>;
}

export async function generateMetadata({ params }: LockPageProps): Promise<Metadata> {
  return { title: resourceFromParam((await params).resource) };
}

export default async function LockPage({ params }: LockPageProps) {
  const resource = resourceFromParam((await params).resource);
  return (
    <ReadGate>
      <LockDetailClient resource={resource} />
    </ReadGate>
  );
}
