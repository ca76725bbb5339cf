import { LoginPage } from "./pages/login-page";
import { expect, test } from "./support/fixtures";

/** Issue 11, item 5: a crafted ?next= must never take the operator to another origin after login. */
for (const next of [
  "/\\evil.test/phish",
  "//evil.test/phish",
  "/\t/evil.test/phish",
  "https://evil.test/phish",
]) {
  test(`after login, ?next=${JSON.stringify(next)} stays on the console's origin`, async ({
    page,
    stack,
  }) => {
    const login = new LoginPage(page);
    await login.login(stack.adminToken, next);
    await expect(page).toHaveURL(`http://127.0.0.1:${stack.port}/`);
  });
}

test("after login, a same-origin ?next= path is followed", async ({ page, stack }) => {
  const login = new LoginPage(page);
  await login.login(stack.adminToken, "/audit?action=login");
  await expect(page).toHaveURL(`http://127.0.0.1:${stack.port}/audit?action=login`);
});
