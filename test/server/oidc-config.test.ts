/** The sign-in settings: parsed with the rest of the environment, every problem named at once. */
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/server/config";

const BASE = { REDLOCK_NODES: "redis://127.0.0.1:6379" };
const OIDC = {
  CONSOLE_OIDC_ISSUER: "https://idp.example.com/realms/ops",
  CONSOLE_OIDC_CLIENT_ID: "redlock-console",
  CONSOLE_OIDC_CLIENT_SECRET: "a-client-secret-from-the-provider",
  CONSOLE_PUBLIC_URL: "https://locks.example.com/",
};

const problems = (env: Record<string, string>) => {
  try {
    parseConfig(env);
    return "";
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
};

describe("sign-in settings", () => {
  it("reads the provider, the redirect URI, the defaults, and needs no admin token with an issuer", () => {
    const config = parseConfig({ ...BASE, ...OIDC });
    expect(config.oidc).toEqual({
      issuer: OIDC.CONSOLE_OIDC_ISSUER,
      clientId: "redlock-console",
      clientSecret: OIDC.CONSOLE_OIDC_CLIENT_SECRET,
      publicUrl: "https://locks.example.com",
      redirectUri: "https://locks.example.com/api/auth/callback",
      scopes: "openid profile email groups",
      groupsClaim: "groups",
      providerName: "idp.example.com",
      cookieSecret: OIDC.CONSOLE_OIDC_CLIENT_SECRET,
    });
    expect(config).toMatchObject({ adminToken: undefined, breakGlass: true, signInTtlS: 28_800 });
  });

  it("accepts http:// only on a loopback address", () => {
    for (const issuer of ["http://127.0.0.1:9090", "http://localhost:9090", "http://[::1]:9090"])
      expect(problems({ ...BASE, ...OIDC, CONSOLE_OIDC_ISSUER: issuer })).toBe("");
    for (const issuer of [
      "http://idp.example.com",
      "http://10.0.0.5:8080",
      "ftp://idp.example.com",
    ])
      expect(problems({ ...BASE, ...OIDC, CONSOLE_OIDC_ISSUER: issuer })).toContain(
        "CONSOLE_OIDC_ISSUER: must be an https:// URL (http:// only on a loopback address",
      );
  });

  it("names every setting missing beside the issuer, and a scope list without openid", () => {
    const message = problems({
      ...BASE,
      CONSOLE_OIDC_ISSUER: OIDC.CONSOLE_OIDC_ISSUER,
      CONSOLE_OIDC_SCOPES: "profile email",
    });
    for (const name of [
      "CONSOLE_OIDC_CLIENT_ID",
      "CONSOLE_OIDC_CLIENT_SECRET",
      "CONSOLE_PUBLIC_URL",
    ])
      expect(message).toContain(`${name}: is required with CONSOLE_OIDC_ISSUER`);
    expect(message).toContain("CONSOLE_OIDC_SCOPES: must include openid");
  });

  it("keeps the admin token required without a provider, and takes CONSOLE_BREAK_GLASS and a separate cookie secret", () => {
    expect(problems(BASE)).toContain("CONSOLE_ADMIN_TOKEN: is required");
    const config = parseConfig({
      ...BASE,
      ...OIDC,
      CONSOLE_BREAK_GLASS: "false",
      CONSOLE_SIGN_IN_SECRET: "0123456789abcdef0123456789abcdef",
      CONSOLE_OIDC_PROVIDER_NAME: "Okta",
    });
    expect(config.breakGlass).toBe(false);
    expect(config.oidc).toMatchObject({
      cookieSecret: "0123456789abcdef0123456789abcdef",
      providerName: "Okta",
    });
    expect(problems({ ...BASE, ...OIDC, CONSOLE_SIGN_IN_SECRET: "short" })).toContain(
      "CONSOLE_SIGN_IN_SECRET: must be a random secret of at least 32 characters",
    );
  });
});
