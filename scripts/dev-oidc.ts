/**
 * `npm run dev:oidc`: a local OpenID Provider (panva's oidc-provider, the one the tests use) with a
 * few people in different groups, so a newcomer can try sign-in and roles without a company IdP.
 * Prints the people's logins and the settings to start the console with; runs until Ctrl-C.
 * For development only: in-memory, http on loopback, fixed client secret.
 */
import { startTestProvider, TEST_PEOPLE, TEST_RBAC } from "../test/support/oidc-provider";

const port = Number(process.env.OIDC_PORT ?? 9090);
const consoleUrl = (process.env.CONSOLE_PUBLIC_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
const clientId = "redlock-console";
const clientSecret = "dev-only-client-secret-0123456789abcdef";

const provider = await startTestProvider({
  port,
  clients: [
    {
      clientId,
      clientSecret,
      redirectUris: [`${consoleUrl}/api/auth/callback`],
      postLogoutRedirectUris: [`${consoleUrl}/login?signed_out=1`],
    },
  ],
});

const settings = {
  CONSOLE_OIDC_ISSUER: provider.issuer,
  CONSOLE_OIDC_CLIENT_ID: clientId,
  CONSOLE_OIDC_CLIENT_SECRET: clientSecret,
  CONSOLE_PUBLIC_URL: consoleUrl,
  CONSOLE_OIDC_PROVIDER_NAME: "the local dev provider",
  CONSOLE_RBAC: TEST_RBAC,
};
console.log(`Local OpenID Provider: ${provider.issuer} (discovery: ${provider.issuer}/.well-known/openid-configuration)
People (username / password: groups):
${TEST_PEOPLE.map((person) => `  ${person.login} / ${person.password}: ${person.groups.join(", ") || "no group"} (${person.name})`).join("\n")}
Start the console in another terminal with:
  ${Object.entries(settings)
    .map(([name, value]) => `${name}='${value}'`)
    .join(" \\\n  ")} \\
  npm start
then open ${consoleUrl}/login and choose "Sign in with the local dev provider".
With that CONSOLE_RBAC: alice is admin, oscar operates the locks of service payments, vera views.`);

const stop = () => void provider.stop().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
