import "server-only";
/**
 * A person named by an authenticating proxy (oauth2-proxy, Pomerium, a cloud IAP) in request
 * headers, believed only when the request's TCP peer is one of CONSOLE_AUTH_PROXY_ADDRESSES. The
 * peer is the address http-server-hooks.ts stamps on every request (PEER_ADDRESS_HEADER, never the
 * client's word, never X-Forwarded-For): anyone who can reach the console directly could send the
 * headers too. Such headers from elsewhere are ignored and logged (without their values).
 */
import { BlockList, isIP } from "node:net";
import type { ConsoleConfig } from "../config";
import { logger } from "../logger";
import { PEER_ADDRESS_HEADER } from "./client-info";
import { personLabel, type Person, type Principal } from "./identity";
import { grantsFor } from "./rbac";

const MAX_USER_CHARS = 256;
const MAX_GROUPS = 100;
const MAX_GROUP_CHARS = 256;
/** One warning per peer address per minute at most: a flood of spoofed headers is one log line. */
const WARN_EVERY_MS = 60_000;
const MAX_WARNED_PEERS = 1_000;

type ProxyConfig = Pick<ConsoleConfig, "authProxy" | "rbacRules" | "rbacDefaultRole">;

export interface ProxyIdentity {
  /** The person the trusted proxy names; null when it names none, or the peer is not the proxy. */
  principalOf(request: Request): Principal | null;
}

function trustedPeers(config: ProxyConfig): BlockList {
  const list = new BlockList();
  for (const { address, prefix, family } of config.authProxy.addresses)
    list.addSubnet(address, prefix, family);
  return list;
}

function isTrusted(peers: BlockList, peer: string): boolean {
  const version = isIP(peer);
  return version !== 0 && peers.check(peer, version === 4 ? "ipv4" : "ipv6");
}

const cleaned = (text: string | null, maxChars: number) => {
  const trimmed = text?.trim() ?? "";
  return trimmed.length > 0 && trimmed.length <= maxChars ? trimmed : null;
};

/** The person in the headers; null without a (sane) user header. */
function personOf(request: Request, config: ProxyConfig): Person | null {
  const { userHeader, emailHeader, groupsHeader } = config.authProxy;
  const subject = cleaned(request.headers.get(userHeader), MAX_USER_CHARS);
  if (subject === null) return null;
  const groups = (request.headers.get(groupsHeader) ?? "")
    .split(",")
    .map((group) => group.trim())
    .filter((group) => group.length > 0 && group.length <= MAX_GROUP_CHARS)
    .slice(0, MAX_GROUPS);
  const email = cleaned(request.headers.get(emailHeader), MAX_USER_CHARS);
  return { subject, issuer: "proxy", name: null, email, groups };
}

export function createProxyIdentity(config: ProxyConfig): ProxyIdentity {
  const peers = trustedPeers(config);
  const warnedAt = new Map<string, number>();
  const { userHeader, emailHeader, groupsHeader } = config.authProxy;
  const named = [userHeader, emailHeader, groupsHeader];

  function warnSpoofed(request: Request, peer: string): void {
    const now = Date.now();
    if ((warnedAt.get(peer) ?? -Infinity) > now - WARN_EVERY_MS) return;
    if (warnedAt.size >= MAX_WARNED_PEERS) warnedAt.clear();
    warnedAt.set(peer, now);
    logger.warn(
      {
        peer,
        // Which headers, never their values: the log is no place for what a stranger claims.
        headers: named.filter((name) => request.headers.has(name)),
      },
      "identity headers from an address not in CONSOLE_AUTH_PROXY_ADDRESSES: ignored",
    );
  }

  return {
    principalOf(request) {
      if (!named.some((name) => request.headers.has(name))) return null;
      const peer = request.headers.get(PEER_ADDRESS_HEADER)?.trim() ?? "";
      if (!isTrusted(peers, peer)) {
        warnSpoofed(request, peer.slice(0, 64) || "unknown");
        return null;
      }
      const person = personOf(request, config);
      if (person === null) return null;
      return {
        kind: "proxy",
        carrier: "proxy",
        label: personLabel(person),
        person,
        grants: grantsFor(person.groups, config.rbacRules, config.rbacDefaultRole),
        credentialId: null,
        tokenName: null,
        expiresAt: null,
      };
    },
  };
}
