import type { Metadata } from "next";
import { ReadGate } from "../../_shell/read-gate";
import { LockDetailClient } from "./client";
import { keyParam, resourceFromSegments } from "./resource-param";

interface LockPageProps {
  params: Promise<{ resource: string[] }>;
  searchParams: Promise<{ key?: string | string[] }>;
}

/** The name shown: the key's bytes read as UTF-8 when the page is addressed by `?key=`. */
async function resolve({ params, searchParams }: LockPageProps) {
  const keyBase64Url = keyParam((await searchParams).key);
  const resource =
    keyBase64Url === undefined
      ? resourceFromSegments((await params).resource)
      : Buffer.from(keyBase64Url, "base64url").toString("utf8");
  return { resource, keyBase64Url };
}

export async function generateMetadata(props: LockPageProps): Promise<Metadata> {
  return { title: (await resolve(props)).resource.slice(0, 200) };
}

export default async function LockPage(props: LockPageProps) {
  const { resource, keyBase64Url } = await resolve(props);
  return (
    <ReadGate>
      <LockDetailClient resource={resource} keyBase64Url={keyBase64Url} />
    </ReadGate>
  );
}
