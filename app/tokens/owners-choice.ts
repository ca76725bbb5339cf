/**
 * Whose tokens the page offers, by the server's own rule (policy.ts `token-admin`: an admin grant
 * over every lock). Not permissionOf: listing everyone's tokens is a read, so it holds in read-only
 * mode too. Pure, so the rule and its words are tested as they are.
 */
import type { Grant } from "@/lib/server/auth/identity";
import { decideConsole, decideRole } from "@/lib/server/auth/policy";

export interface OwnersChoice {
  /** Everyone's tokens may be listed and revoked. */
  readonly everyone: boolean;
  /** For an admin whose grants are all scoped: why only their own tokens are shown. */
  readonly onlyOwnBecause: string | null;
}

export function ownersChoice(grants: readonly Grant[]): OwnersChoice {
  const others = decideConsole(grants, "token-admin");
  if (others.allowed) return { everyone: true, onlyOwnBecause: null };
  // An admin of some locks may expect to manage tokens too: say why not. Others never expect it.
  const scopedAdmin = decideRole(grants, "token-admin").allowed;
  return { everyone: false, onlyOwnBecause: scopedAdmin ? others.reason : null };
}
