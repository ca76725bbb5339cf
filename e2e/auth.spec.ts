import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { PlaygroundPage } from "./pages/playground-page";
import { expect, test } from "./support/fixtures";

test("without login, the UI offers no destructive action and the API refuses one", async ({
  page,
  api,
  request,
  stack,
  resource,
}) => {
  const { lock } = await api.acquire([resource], 30_000);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  // The header's link (the page's own notice offers one too, since the sign-in wording change).
  await expect(
    page.getByRole("banner").getByRole("link", { name: "Sign in", exact: true }),
  ).toBeVisible();
  await expect(detail.forceReleaseButton).toHaveCount(0);

  const playground = new PlaygroundPage(page);
  await playground.goto();
  await expect(page.getByText("need you to sign in")).toBeVisible();
  await expect(playground.acquireButton).toBeDisabled();

  const refused = await request.post("/api/locks/force-release", {
    headers: { origin: `http://127.0.0.1:${stack.port}`, "content-type": "application/json" },
    data: { resource, expectedValue: lock.value, reason: "no credential" },
  });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).error.code).toBe("unauthorized");
  await api.release([resource], lock.value);
});

test("a wrong token is refused with an explanation; the right one signs in and sign-out ends the sign-in", async ({
  page,
  stack,
  consoleErrors,
}) => {
  consoleErrors.allow(/status of 401/);
  const login = new LoginPage(page);
  await login.goto();
  await login.submit("not-the-admin-token");
  await expect(page.getByRole("main").getByRole("alert")).toContainText(
    "That is not the admin token",
  );
  await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(0);

  await login.login(stack.adminToken);
  await expect(page).toHaveURL(/\/$/);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("banner").getByRole("link", { name: "Sign in" })).toBeVisible();
  const playground = new PlaygroundPage(page);
  await playground.goto();
  await expect(playground.acquireButton).toBeDisabled();
});
