/**
 * A real OpenID Provider for tests and local development: panva's oidc-provider (OpenID Certified)
 * in-process on a loopback port, with a few people in groups and a minimal login page of its own
 * (username and password checked; consent granted without asking). Not a mock: discovery, JWKS,
 * authorization, token, userinfo and end-session are the library's own.
 * `alterTokenResponse` sits in front of the token endpoint, as a hostile proxy would, so a test
 * can hand the console an ID token that differs from the real one in one claim or its signature.
 */
import {
  createPrivateKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type JsonWebKey,
} from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestPerson {
  readonly login: string;
  readonly password: string;
  readonly name: string;
  readonly email: string;
  readonly groups: readonly string[];
}

export interface TestClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris?: readonly string[];
}

/** A few people in different groups: an admin, a payments operator, a viewer, someone in no group. */
export const TEST_PEOPLE: readonly TestPerson[] = [
  {
    login: "alice",
    password: "alice-pass",
    name: "Alice Admin",
    email: "alice@example.test",
    groups: ["sre", "everyone"],
  },
  {
    login: "oscar",
    password: "oscar-pass",
    name: "Oscar Oncall",
    email: "oscar@example.test",
    groups: ["payments-oncall", "everyone"],
  },
  {
    login: "vera",
    password: "vera-pass",
    name: "Vera Viewer",
    email: "vera@example.test",
    groups: ["everyone"],
  },
  {
    login: "nobody",
    password: "nobody-pass",
    name: "Nora Nogroup",
    email: "nora@example.test",
    groups: [],
  },
];

/** CONSOLE_RBAC for TEST_PEOPLE: sre admins everything, payments-oncall operates payments' locks. */
export const TEST_RBAC = JSON.stringify([
  { group: "sre", role: "admin" },
  { group: "payments-oncall", role: "operator", services: ["payments"] },
  { group: "everyone", role: "viewer" },
]);

export interface ProviderOptions {
  readonly clients: readonly TestClient[];
  readonly people?: readonly TestPerson[];
  /** Port to listen on; 0 (default) for a free one. */
  readonly port?: number;
  /** Claims (name, email, groups) in the ID token (default) or only from userinfo. */
  readonly claimsIn?: "id_token" | "userinfo";
}

export type TokenResponse = Record<string, unknown> & { id_token?: string };

export interface TestProvider {
  readonly issuer: string;
  /** Replaces the token endpoint's answer while set (a hostile proxy); undefined: passed as is. */
  alterTokenResponse: ((body: TokenResponse) => TokenResponse) | undefined;
  /** Signs a JWT with the provider's own key, as the provider would (RS256, its kid). */
  signAsProvider(header: Record<string, unknown>, claims: Record<string, unknown>): string;
  /** What the token endpoint refused, as the provider explains it to itself ("invalid_grant: code_verifier does not match code_challenge"). */
  readonly tokenErrors: string[];
  stop(): Promise<void>;
}

function newSigningKey(): JsonWebKey & { kid: string } {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    ...privateKey.export({ format: "jwk" }),
    kid: randomBytes(6).toString("hex"),
    alg: "RS256",
    use: "sig",
  };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

export function signJwt(
  key: JsonWebKey,
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
): string {
  const input = `${base64url(header)}.${base64url(claims)}`;
  const signature = sign("sha256", Buffer.from(input), createPrivateKey({ key, format: "jwk" }));
  return `${input}.${signature.toString("base64url")}`;
}

/** The header and claims of a JWT (no check: the test reads what it will alter). */
export function decodeJwt(jwt: string): {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
} {
  const [header = "", claims = ""] = jwt.split(".");
  const parse = (part: string) =>
    JSON.parse(Buffer.from(part, "base64url").toString()) as Record<string, unknown>;
  return { header: parse(header), claims: parse(claims) };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function loginPage(uid: string, error: string | null): string {
  return `<!doctype html><html lang="en"><head><title>Test provider: sign in</title></head><body>
<h1>Test identity provider</h1>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>Username <input name="login" autocomplete="username" required autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form></body></html>`;
}

function logoutSource(ctx: { body: unknown }, form: string): void {
  ctx.body = `<!doctype html><html lang="en"><head><title>Test provider: sign out</title></head><body>
<h1>Sign out of the test identity provider?</h1>${form}
<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button></body></html>`;
}

function postLogoutSuccessSource(ctx: { body: unknown }): void {
  ctx.body = `<!doctype html><html lang="en"><head><title>Signed out</title></head><body><h1>Signed out of the test identity provider</h1></body></html>`;
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return new URLSearchParams(text);
}

export async function startTestProvider(options: ProviderOptions): Promise<TestProvider> {
  const people = options.people ?? TEST_PEOPLE;
  const key = newSigningKey();
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: [...client.redirectUris],
      post_logout_redirect_uris: [...(client.postLogoutRedirectUris ?? [])],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    })),
    jwks: { keys: [key] },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      groups: ["groups"],
    },
    conformIdTokenClaims: options.claimsIn === "userinfo",
    features: {
      devInteractions: { enabled: false },
      // Its own page (the default one loads a web font from the internet).
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
    },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, IdToken: 600, Interaction: 600, Session: 3_600, Grant: 3_600 },
    findAccount: (_ctx: unknown, id: string) => {
      const person = people.find((candidate) => candidate.login === id);
      return (
        person && {
          accountId: id,
          claims: () => ({
            sub: id,
            name: person.name,
            email: person.email,
            email_verified: true,
            groups: [...person.groups],
          }),
        }
      );
    },
  });
  const fixture: TestProvider = {
    issuer,
    alterTokenResponse: undefined,
    tokenErrors: [],
    signAsProvider: (header, claims) =>
      signJwt(key, { alg: "RS256", kid: key.kid, ...header }, claims),
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  provider.on("grant.error", (_ctx, error) => {
    const { error: code, error_detail: detail } = error as {
      error?: string;
      error_detail?: string;
    };
    fixture.tokenErrors.push(`${code}: ${detail}`);
  });
  provider.use(async (ctx, next) => {
    await next();
    const alter = fixture.alterTokenResponse;
    if (alter && ctx.path === "/token" && ctx.status === 200)
      ctx.body = alter(ctx.body as TokenResponse);
  });

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (req.method === "POST" && req.url?.endsWith("/login")) {
      const form = await formOf(req);
      const person = people.find((candidate) => candidate.login === form.get("login"));
      if (!person || person.password !== form.get("password")) {
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(loginPage(details.uid, "Wrong username or password."));
        return;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: person.login } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (details.prompt.name === "login") {
      res.writeHead(200, { "content-type": "text/html" }).end(loginPage(details.uid, null));
      return;
    }
    // Consent: granted as asked (these are the console's own people and client).
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({
          accountId: details.session?.accountId,
          clientId: details.params.client_id,
        });
    if (!grant) throw new Error("grant not found");
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: true },
    );
  }

  const callback = provider.callback();
  handler = (req, res) => {
    // Browsers ask every origin for one; a 404 would be a console error in the e2e specs.
    if (req.url === "/favicon.ico") return void res.writeHead(204).end();
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    interaction(req, res).catch((error: unknown) => {
      res
        .writeHead(400, { "content-type": "text/plain" })
        .end(`interaction failed: ${String(error)}`);
    });
  };
  return fixture;
}
