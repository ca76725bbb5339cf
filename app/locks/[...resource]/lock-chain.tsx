"use client";

import Link from "next/link";
import { participantPhrase } from "@/components/contention/describe";
import type { ContentionResponse } from "@/lib/api";
import { useContention } from "../../_queries/contention";

/** Where `resource` sits in the graph: who waits for it (transitively), who blocks its holder. */
export function chainAround(graph: ContentionResponse, resource: string) {
  const cycle = graph.cycles.find((candidate) => candidate.resources.includes(resource));
  const chain = graph.chains
    .filter((candidate) => candidate.resources.includes(resource))
    .sort((a, b) => b.sessions.length - a.sessions.length)[0];
  if (!chain) return { cycle, blocked: [], holder: null, blockers: [] };
  const step = chain.resources.indexOf(resource);
  return {
    cycle,
    blocked: chain.sessions.slice(0, step + 1),
    holder: chain.sessions[step + 1]!,
    blockers: chain.sessions.slice(step + 2),
  };
}

/** Beside the waiters table: the chain this lock is part of, in words. */
export function LockChain({ resource }: { resource: string }) {
  const { data } = useContention();
  if (!data) return null;
  const { cycle, blocked, holder, blockers } = chainAround(data, resource);
  const phrase = (id: string) => participantPhrase(id, data.participants[id]?.labels);
  return (
    <section aria-labelledby="lock-chain-heading">
      <h2 id="lock-chain-heading">Wait chain</h2>
      {cycle && (
        <p className="notice notice-warn">
          This lock is part of a deadlock cycle between {cycle.sessions.map(phrase).join(", ")}.{" "}
          <Link href="/contention">Break it on the Contention page</Link>.
        </p>
      )}
      {holder === null ? (
        !cycle && <p className="muted">Nobody waits for this lock through a chain now.</p>
      ) : (
        <ul>
          <li>
            Held by {phrase(holder)}
            {blockers.length === 0
              ? ", which waits for nothing."
              : `, which is itself blocked by ${blockers.map(phrase).join(", then ")}.`}
          </li>
          <li>
            It blocks {blocked.length} {blocked.length === 1 ? "session" : "sessions"}{" "}
            (transitively): {[...blocked].reverse().map(phrase).join(", then ")}.
          </li>
        </ul>
      )}
    </section>
  );
}
