"use client";

import Link from "next/link";
import { Fragment } from "react";
import { participantPhrase } from "@/components/contention/describe";
import { lockHref } from "@/components/locks/lock-href";
import type { ContentionChain, ContentionParticipant } from "@/lib/api";

/**
 * A chain in words, as chainSentence says it, with each lock a link to its page: "X waits for
 * orders:7, held by Y, which waits for nothing: the root blocker."
 */
export function ChainWords({
  chain,
  participants,
}: {
  chain: ContentionChain;
  participants: Readonly<Record<string, ContentionParticipant>>;
}) {
  const phrase = (id: string) => participantPhrase(id, participants[id]?.labels);
  return (
    <>
      {chain.resources.map((resource, step) => (
        <Fragment key={step}>
          {step === 0 ? `${phrase(chain.sessions[0]!)} waits for ` : ", which waits for "}
          <Link href={lockHref(resource)}>{resource}</Link>
          {`, held by ${phrase(chain.sessions[step + 1]!)}`}
        </Fragment>
      ))}
      {chain.endsInCycle
        ? ", which is caught in a deadlock cycle (below)."
        : ", which waits for nothing: the root blocker."}
    </>
  );
}
