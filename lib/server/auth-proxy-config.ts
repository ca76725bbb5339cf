/**
 * The authenticating proxy's settings (oauth2-proxy, Pomerium, a cloud IAP): the addresses whose
 * requests are believed (CONSOLE_AUTH_PROXY_ADDRESSES: addresses or CIDRs, as Grafana's auth proxy
 * whitelist) and the headers that name the person. Plain zod, no server-only: scripts/start.ts
 * validates the environment with config.ts, which composes these.
 */
import { isIP } from "node:net";
import { z } from "zod";
import { listVar } from "./config-vars";

/** `10.0.0.7`, `10.0.0.0/8`, `fd00::/8`: an address and its prefix length (the full one when none). */
export interface ProxyAddress {
  readonly address: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

function parseProxyAddress(text: string): ProxyAddress | null {
  const [address = "", prefixText, ...rest] = text.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return null;
  const full = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? full : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? "0") || prefix > full) return null;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

export const proxyAddressesVar = listVar.transform((items, context) =>
  items.flatMap((item) => {
    const parsed = parseProxyAddress(item);
    if (parsed) return [parsed];
    context.addIssue({
      code: "custom",
      message: `"${item.slice(0, 64)}" is no IP address or CIDR (e.g. 10.0.0.7 or 10.0.0.0/8)`,
    });
    return [];
  }),
);

/** An HTTP header name (RFC 9110 token), kept lowercase as the fetch API's Headers does. */
export const headerNameVar = z
  .string()
  .max(128)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be an HTTP header name, e.g. X-Forwarded-User")
  .transform((name) => name.toLowerCase());
