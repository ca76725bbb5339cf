/**
 * Sign-in in Chromium through the real provider's login page (the stack starts oidc-provider beside
 * the console: e2e/stack.ts): the person and role in the header and in /api/session, sign-out with
 * the provider's logout, a failed sign-in said in words, and the break-glass banner for admins.
 */
import { LoginPage } from "./pages/login-page";
import { ProviderLoginPage } from "./pages/provider-login-page";
import { expect, test } from "./support/fixtures";

test("a person signs in with the provider, sees their name and role, and signs out of both", async ({
  page,
  stack,
}) => {
  await page.goto("/login?next=%2Fplayground");
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await expect(page).toHaveURL(new RegExp(`^${stack.oidcIssuer}/interaction/`));
  await new ProviderLoginPage(page).signIn("oscar", "oscar-pass");

  await expect(page).toHaveURL(/\/playground$/);
  const header = page.getByRole("banner");
  await expect(header.getByText("Oscar Oncall")).toBeVisible();
  await expect(header.getByText("operator", { exact: true })).toBeVisible();
  const session = await (await page.request.get("/api/session")).json();
  expect(session).toMatchObject({
    credential: "sign-in",
    role: "operator",
    person: { subject: "oscar", groups: ["payments-oncall", "everyone"] },
  });

  await header.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(new RegExp(`^${stack.oidcIssuer}/session/end`));
  await page.getByRole("button", { name: "Yes, sign me out" }).click();
  await expect(page).toHaveURL(/\/login\?signed_out=1$/);
  await expect(page.getByText("You are signed out.")).toBeVisible();
  await expect(page.getByRole("banner").getByRole("link", { name: "Sign in" })).toBeVisible();
  expect((await (await page.request.get("/api/session")).json()).authenticated).toBe(false);
});

test("a wrong password stays at the provider; a refused answer is said in words", async ({
  page,
}) => {
  await page.goto("/login");
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await new ProviderLoginPage(page).signIn("vera", "not-her-password");
  await expect(page.getByRole("alert")).toHaveText("Wrong username or password.");
  const main = page.getByRole("main");

  // A forged answer at the callback (no issuer, a made-up code and state): refused, in words.
  await page.goto("/api/auth/callback?code=forged&state=forged");
  await expect(page).toHaveURL(/\/login\?sign_in_error=refused/);
  await expect(main.getByRole("alert")).toContainText("Sign-in failed.");
  await expect(main.getByRole("alert")).toContainText("did not pass the console's checks");
});

test("the provider unreachable: the login page says so and break-glass still signs in", async ({
  page,
  stack,
}) => {
  // What GET /api/auth/login answers when discovery fails (test/server/sign-in-refusals.test.ts).
  await page.goto(
    "/login?sign_in_error=provider_unreachable&detail=http%3A%2F%2F127.0.0.1%3A1%3A%20fetch%20failed",
  );
  await expect(page.getByRole("main").getByRole("alert")).toContainText(
    "The identity provider cannot be reached right now",
  );
  await new LoginPage(page).login(stack.adminToken);
  await expect(page.getByText("You are using the break-glass admin token")).toBeVisible();
});

test("an admin signed in as themselves sees the latest break-glass use", async ({
  page,
  api,
  resource,
}) => {
  const { lock } = await api.acquire([resource], 5_000);
  await api.release([resource], lock.value);
  await page.goto("/login");
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await new ProviderLoginPage(page).signIn("alice", "alice-pass");
  await expect(page.getByRole("banner").getByText("Alice Admin")).toBeVisible();
  await expect(page.getByText("The break-glass admin token was used at")).toBeVisible();
  await expect(page.getByRole("link", { name: "See the audit" })).toBeVisible();
});
