/**
 * Chains and cycles in words, for the on-call reader: "session 1a2b3c4d (service billing) waits for
 * invoices:7, held by session 5e6f7a8b (service orders), which …". Pure: the pages and tests share it.
 */
import type { ContentionChain, ContentionCycle, ContentionParticipant } from "@/lib/api";
import { ownerHeadline } from "@/components/locks/owner-text";

type Participants = Readonly<Record<string, ContentionParticipant>>;

const phraseOf = (id: string, participants: Participants) =>
  participantPhrase(id, participants[id]?.labels);

/**
 * A participant as a short phrase, named as every page names a holder: "billing / worker-7 / 4242
 * (session 1a2b3c4d)"; without labels, by its session id alone.
 */
export function participantPhrase(
  id: string,
  labels: Readonly<Record<string, string>> = {},
): string {
  const name = Object.keys(labels).length > 0 ? ownerHeadline(labels) : null;
  if (id.startsWith("waiter:")) return `a contender without a session${name ? ` (${name})` : ""}`;
  if (id.startsWith("holder:")) return `a holder without a session${name ? ` (${name})` : ""}`;
  return name ? `${name} (session ${id.slice(0, 8)})` : `session ${id.slice(0, 8)}`;
}

/** "X waits for R, held by Y, which waits for S, held by Z, which waits for nothing." */
export function chainSentence(chain: ContentionChain, participants: Participants): string {
  const parts = chain.resources.map((resource, step) => {
    const waiter = phraseOf(chain.sessions[step]!, participants);
    const holder = phraseOf(chain.sessions[step + 1]!, participants);
    return step === 0
      ? `${waiter} waits for ${resource}, held by ${holder}`
      : `which waits for ${resource}, held by ${holder}`;
  });
  const ending = chain.endsInCycle
    ? ", which is caught in a deadlock cycle (below)."
    : ", which waits for nothing: the root blocker.";
  return `${parts.join(", ")}${ending}`;
}

/** Each member's step of a cycle: "session A holds X and waits for Y, held by session B." */
export function cycleSteps(cycle: ContentionCycle, participants: Participants): string[] {
  const count = cycle.sessions.length;
  return cycle.sessions.map((session, step) => {
    const held = cycle.resources[(step + count - 1) % count]!;
    const next = phraseOf(cycle.sessions[(step + 1) % count]!, participants);
    return `${phraseOf(session, participants)} holds ${held} and waits for ${cycle.resources[step]}, held by ${next}.`;
  });
}
