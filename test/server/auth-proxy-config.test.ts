/**
 * CONSOLE_AUTH_PROXY_* and CONSOLE_VIEWER_VALUES as the environment gives them: addresses and CIDRs
 * parsed once, every bad entry named at start, header names kept lowercase.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/server/config";

const base = {
  REDLOCK_NODES: "redis://127.0.0.1:6379",
  CONSOLE_ADMIN_TOKEN: "0123456789abcdef0123456789ABCDEF-x",
};

describe("the authenticating proxy's settings", () => {
  it("default to no proxy, the X-Forwarded-* headers and digests for viewers", () => {
    const config = parseConfig(base);
    expect(config.authProxy).toEqual({
      addresses: [],
      userHeader: "x-forwarded-user",
      emailHeader: "x-forwarded-email",
      groupsHeader: "x-forwarded-groups",
    });
    expect(config.viewerValues).toBe(false);
  });

  it("parse addresses and CIDRs of both families, and header names", () => {
    const config = parseConfig({
      ...base,
      CONSOLE_AUTH_PROXY_ADDRESSES: "10.0.0.7, 10.1.0.0/16, fd00::/8",
      CONSOLE_AUTH_PROXY_USER_HEADER: "X-Auth-Request-User",
      CONSOLE_VIEWER_VALUES: "true",
    });
    expect(config.authProxy.addresses).toEqual([
      { address: "10.0.0.7", prefix: 32, family: "ipv4" },
      { address: "10.1.0.0", prefix: 16, family: "ipv4" },
      { address: "fd00::", prefix: 8, family: "ipv6" },
    ]);
    expect(config.authProxy.userHeader).toBe("x-auth-request-user");
    expect(config.viewerValues).toBe(true);
  });

  it("refuse at start every entry that is no address or CIDR, and a header name with a space", () => {
    expect(() =>
      parseConfig({
        ...base,
        CONSOLE_AUTH_PROXY_ADDRESSES: "proxy.internal,10.0.0.0/33,10.0.0.1",
        CONSOLE_AUTH_PROXY_GROUPS_HEADER: "X Groups",
      }),
    ).toThrow(
      /CONSOLE_AUTH_PROXY_ADDRESSES: "proxy.internal" is no IP address[^\n]*\n {2}CONSOLE_AUTH_PROXY_ADDRESSES: "10.0.0.0\/33" is no IP address[^\n]*\n {2}CONSOLE_AUTH_PROXY_GROUPS_HEADER: must be an HTTP header name/,
    );
  });
});
