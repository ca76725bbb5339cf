import "server-only";
/**
 * Personal tokens: a person's credential for scripts (lib/api/tokens.ts has the routes' shapes).
 * Created by a signed-in person within their own grants and CONSOLE_TOKEN_MAX_TTL_DAYS, shown
 * once, kept as a hash on the lock nodes (token-store.ts: valid only while a majority holds the
 * record), listed with last use, revoked by the owner or by whom the policy's `token-admin` allows
 * (an admin grant over every lock: a scoped admin administers locks, not other people's tokens).
 */
import type {
  CreateTokenRequest,
  CreateTokenResponse,
  PersonalToken,
  TokensResponse,
} from "@/lib/api";
import { ApiError } from "../../errors";
import type { ConsoleNode } from "../../node-registry";
import { personLabel, type Grant, type Person, type Principal } from "../identity";
import { decideConsole } from "../policy";
import { coveringGrant, grantWords } from "./scope";
import { hashSecret, idOfSecret, newSecret, secretMatches } from "./secret";
import { createTokenStore, type TokenRecord } from "./token-store";

/** Last use is written at most once per this much time per token: a busy script costs no writes. */
export const LAST_USE_RESOLUTION_MS = 60_000;
/** Live tokens one person may have; the console lists at most MAX_TOKENS in all. */
export const MAX_TOKENS_PER_PERSON = 50;
export const MAX_TOKENS = 2_000;
const HOUR_MS = 3_600_000;

export type TokenCheck =
  | { readonly outcome: "valid"; readonly principal: Principal }
  | { readonly outcome: "invalid" }
  /** Too few nodes answered to tell: refused, but not the caller's fault. */
  | { readonly outcome: "undecided" };

export interface PersonalTokens {
  create(principal: Principal, request: CreateTokenRequest): Promise<CreateTokenResponse>;
  /** The bearer path: `secret` has the token prefix. */
  check(secret: string): Promise<TokenCheck>;
  list(principal: Principal, owner: "mine" | "all"): Promise<TokensResponse>;
  /** Returns the revoked token (for the audit) and the nodes it is gone from. */
  revoke(principal: Principal, id: string): Promise<{ token: PersonalToken; nodes: string[] }>;
}

export interface PersonalTokensDeps {
  readonly nodes: readonly ConsoleNode[];
  readonly quorumSize: number;
  readonly deadlineMs: number;
  readonly isHung: (node: ConsoleNode) => boolean;
  readonly maxTtlDays: number;
}

/** Others' tokens (listing everyone's, revoking theirs): the policy's console-wide `token-admin`. */
const tokenAdmin = (principal: Principal) => decideConsole(principal.grants, "token-admin");
const sameOwner = (owner: TokenRecord["owner"], person: Person) =>
  owner.subject === person.subject && owner.issuer === person.issuer;
const ownerPerson = (owner: TokenRecord["owner"]): Person => ({ ...owner, groups: [] });

function publicView(record: TokenRecord, lastUsedAt: number | null): PersonalToken {
  return {
    id: record.id,
    name: record.name,
    owner: record.owner,
    ownerLabel: personLabel(ownerPerson(record.owner)),
    grants: record.grants.map((grant) => ({
      ...grant,
      resources: grant.resources && [...grant.resources],
      services: grant.services && [...grant.services],
    })),
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    lastUsedAt,
  };
}

/** Who a valid token acts as: its owner, with the token's grants only. */
export function tokenPrincipal(record: TokenRecord): Principal {
  const person = ownerPerson(record.owner);
  return {
    kind: "personal-token",
    carrier: "bearer",
    label: `${personLabel(person)} via token ${record.name}`,
    person,
    grants: record.grants,
    credentialId: record.id,
    tokenName: record.name,
    expiresAt: record.expiresAt,
  };
}

/** The creator's person, refused (403) for break-glass (nobody) and for a token (no self-renewal). */
function creatorOf(principal: Principal): Person {
  if (principal.kind === "personal-token") {
    throw new ApiError(
      "forbidden",
      "A personal token cannot create tokens (it would outlive its own expiry): sign in.",
    );
  }
  if (!principal.person) {
    throw new ApiError(
      "forbidden",
      "The break-glass admin token is nobody in particular, and a personal token needs a person: sign in.",
    );
  }
  return principal.person;
}

/** Each requested grant within one of the creator's (403 naming the first that is not). */
function grantsFor(principal: Principal, request: CreateTokenRequest): Grant[] {
  return request.grants.map((requested, index) => {
    const asked = {
      role: requested.role,
      resources: requested.resources ?? null,
      services: requested.services ?? null,
    };
    const within = coveringGrant(asked, principal.grants);
    if (!within) {
      const own = principal.grants.map((grant) => `${grantWords(grant)} (${grant.rule})`);
      throw new ApiError(
        "forbidden",
        `grants[${index}]: ${grantWords(asked)} is not within your own grants: ${own.length > 0 ? own.join("; ") : "you have none"}.`,
      );
    }
    return { ...asked, rule: `token ${request.name}, within ${within.rule}` };
  });
}

export function createPersonalTokens(deps: PersonalTokensDeps): PersonalTokens {
  const store = createTokenStore(deps.nodes, deps.quorumSize, deps.deadlineMs, deps.isHung);
  // This replica's revocations: refused at once, even when the nodes' deletion was partial.
  const revokedHere = new Map<string, number>();
  const revokedLocally = (id: string, nowMs: number) => {
    for (const [known, until] of revokedHere) if (until <= nowMs) revokedHere.delete(known);
    return revokedHere.has(id);
  };

  async function readAll(nowMs: number) {
    const { ids, unreachableNodes } = await store.ids(nowMs, MAX_TOKENS);
    const read = await Promise.all(ids.map((id) => store.get(id, nowMs)));
    const tokens = read.flatMap(({ record, lastUsedAt }) =>
      record && !revokedLocally(record.id, nowMs) ? [publicView(record, lastUsedAt)] : [],
    );
    return { tokens, unreachableNodes };
  }

  return {
    async create(principal, request) {
      const person = creatorOf(principal);
      const maxHours = deps.maxTtlDays * 24;
      if (request.expiresInHours > maxHours) {
        throw new ApiError(
          "invalid_request",
          `Invalid request body: expiresInHours: must be at most ${maxHours} (CONSOLE_TOKEN_MAX_TTL_DAYS is ${deps.maxTtlDays}).`,
        );
      }
      const grants = grantsFor(principal, request);
      const nowMs = Date.now();
      const mine = (await readAll(nowMs)).tokens.filter((token) => sameOwner(token.owner, person));
      if (mine.length >= MAX_TOKENS_PER_PERSON) {
        throw new ApiError(
          "invalid_request",
          `You have ${mine.length} live tokens, the most one person may have: revoke one first.`,
        );
      }
      if (mine.some((token) => token.name === request.name)) {
        throw new ApiError(
          "invalid_request",
          `You already have a token named ${request.name}: names tell tokens apart in the audit.`,
        );
      }
      const { id, secret } = newSecret();
      const record: TokenRecord = {
        v: 1,
        id,
        name: request.name,
        owner: {
          subject: person.subject,
          issuer: person.issuer,
          name: person.name,
          email: person.email,
        },
        grants: grants.map((grant) => ({
          ...grant,
          resources: grant.resources && [...grant.resources],
          services: grant.services && [...grant.services],
        })),
        createdAt: nowMs,
        expiresAt: nowMs + request.expiresInHours * HOUR_MS,
        secretHash: hashSecret(secret),
      };
      const nodes = await store.put(record, nowMs);
      return { token: publicView(record, null), secret, nodes };
    },

    async check(secret) {
      const id = idOfSecret(secret);
      if (id === null) return { outcome: "invalid" };
      const nowMs = Date.now();
      if (revokedLocally(id, nowMs)) return { outcome: "invalid" };
      const stored = await store.get(id, nowMs);
      if (stored.undecided) return { outcome: "undecided" };
      if (!stored.record || !secretMatches(secret, stored.record.secretHash)) {
        return { outcome: "invalid" };
      }
      if (stored.lastUsedAt === null || nowMs - stored.lastUsedAt >= LAST_USE_RESOLUTION_MS) {
        store.touch(id, nowMs, stored.record.expiresAt);
      }
      return { outcome: "valid", principal: tokenPrincipal(stored.record) };
    },

    async list(principal, owner) {
      const others = tokenAdmin(principal);
      if (owner === "all" && !others.allowed) throw new ApiError("forbidden", others.reason);
      const all = owner === "all";
      const { tokens, unreachableNodes } = await readAll(Date.now());
      const person = principal.person;
      return {
        serverTime: Date.now(),
        tokens: tokens
          .filter((token) => all || (person !== null && sameOwner(token.owner, person)))
          .sort((a, b) => b.createdAt - a.createdAt),
        canRevokeOthers: others.allowed,
        maxExpiresInHours: deps.maxTtlDays * 24,
        unreachableNodes,
      };
    },

    async revoke(principal, id) {
      const nowMs = Date.now();
      const stored = await store.get(id, nowMs);
      const copy = stored.record ?? stored.anyCopy;
      if (!copy || revokedLocally(id, nowMs)) {
        throw new ApiError("not_found", `No live token has the id ${id}.`);
      }
      const owns = principal.person !== null && sameOwner(copy.owner, principal.person);
      const others = owns ? null : tokenAdmin(principal);
      if (others && !others.allowed) {
        throw new ApiError(
          "forbidden",
          `Only the token's owner or an admin over every lock may revoke it, and it is someone else's: ${others.reason}`,
        );
      }
      revokedHere.set(id, copy.expiresAt);
      const nodes = await store.remove(id);
      return { token: publicView(copy, stored.lastUsedAt), nodes };
    },
  };
}
