import "server-only";
/**
 * What the console keeps of sign-ins, on the lock nodes beside the audit trail and the break-glass
 * revocations (revocations.ts), so that every replica sees it and it outlives a restart:
 * - `redlock:console:signed-out:<sha256 of the sign-in id>`: one sign-in ended (sign-out), kept
 *   until that sign-in would have expired;
 * - `redlock:console:sign-in-generation:<sha256 of issuer and subject>`: a counter per person.
 *   Each sign-in carries the counter as it was when it began; revoking a person's sign-ins raises
 *   it, so every sign-in made before is refused on every replica. A counter, not a time: replicas'
 *   clocks differ, and a time would let a sign-in begun on a fast replica outlive a revocation.
 *
 * Read rule (as revocations.ts): a sign-in is refused when ANY answering node has its sign-out or a
 * higher generation, and when no node answers (fail closed). A node that missed a revocation does
 * not undo it while another that took it answers. Limit: a revocation is lost if every node that
 * stored it loses it before the sign-ins it ends would have expired.
 */
import { createHash } from "node:crypto";
import { RESERVED_PREFIX } from "@/lib/api";
import { withDeadline, type ConsoleNode } from "../../node-registry";
import type { SignIn } from "./cookies";

const SIGNED_OUT = `${RESERVED_PREFIX}console:signed-out:`;
const GENERATION = `${RESERVED_PREFIX}console:sign-in-generation:`;

const hashOf = (text: string) => createHash("sha256").update(text).digest("base64url");
const signedOutKey = (id: string) => `${SIGNED_OUT}${hashOf(id)}`;
const generationKey = (issuer: string, subject: string) =>
  `${GENERATION}${hashOf(`${issuer}\n${subject}`)}`;

export interface SignInRecords {
  /** The person's current generation (max over answering nodes); null when no node answers. */
  generationOf(issuer: string, subject: string): Promise<number | null>;
  /** Ends one sign-in; resolves with the ids of the nodes that stored it. */
  signOut(signIn: Pick<SignIn, "id" | "expiresAt">): Promise<string[]>;
  /** Ends every sign-in the person made so far, on every replica; the nodes that stored it. */
  revokePerson(issuer: string, subject: string, keepMs: number): Promise<string[]>;
  /** Signed out, revoked, or no node to say otherwise. */
  isRevoked(signIn: SignIn): Promise<boolean>;
}

export function createSignInRecords(
  nodes: readonly ConsoleNode[],
  deadlineMs: number,
  isHung: (node: ConsoleNode) => boolean,
): SignInRecords {
  /** Each node's reply, undefined for a node that did not answer in time. */
  const onEach = <T>(command: (node: ConsoleNode) => Promise<T>) =>
    Promise.all(
      nodes.map((node) =>
        isHung(node) ? undefined : withDeadline(command(node), deadlineMs).catch(() => undefined),
      ),
    );
  const storedOn = (replies: readonly unknown[]) =>
    nodes.filter((_, index) => replies[index] !== undefined).map((node) => node.id);

  async function generationOf(issuer: string, subject: string): Promise<number | null> {
    const replies = await onEach((node) => node.client.get(generationKey(issuer, subject)));
    const answered = replies.filter((reply) => reply !== undefined);
    if (answered.length === 0) return null;
    return Math.max(0, ...answered.map((reply) => Number(reply ?? 0) || 0));
  }

  return {
    generationOf,
    async signOut({ id, expiresAt }) {
      const ttlMs = Math.max(1, expiresAt - Date.now());
      return storedOn(await onEach((node) => node.client.set(signedOutKey(id), "1", "PX", ttlMs)));
    },
    async revokePerson(issuer, subject, keepMs) {
      const next = ((await generationOf(issuer, subject)) ?? 0) + 1;
      const key = generationKey(issuer, subject);
      return storedOn(await onEach((node) => node.client.set(key, String(next), "PX", keepMs)));
    },
    async isRevoked(signIn) {
      // Two GETs, not one MGET: on a Redis Cluster node the keys may live in different slots.
      const replies = await onEach((node) =>
        Promise.all([
          node.client.get(signedOutKey(signIn.id)),
          node.client.get(generationKey(signIn.issuer, signIn.subject)),
        ]),
      );
      const answered = replies.filter((reply) => reply !== undefined);
      return (
        answered.length === 0 ||
        answered.some(
          ([signedOut, generation]) =>
            signedOut !== null || Number(generation ?? 0) > signIn.generation,
        )
      );
    },
  };
}
