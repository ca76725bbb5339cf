/**
 * Roles in the browser: people arrive as an authenticating proxy names them (headers from the
 * trusted 127.0.0.1, e2e/stack.ts), a viewer is told why Force release is absent, an operator whose
 * scope covers the holder's service is offered it. The two screenshots are docs/security.md's.
 */
import { LockDetailPage } from "./pages/lock-detail-page";
import { expect, test } from "./support/fixtures";

const KEEP_SCREENSHOTS = process.env.E2E_SCREENSHOTS === "1";

const asPerson = (user: string, groups: string[]) => ({
  "x-forwarded-user": user,
  "x-forwarded-email": `${user}@example.com`,
  "x-forwarded-groups": groups.join(","),
});

test("a viewer is told why Force release is absent; an operator of the holder's service is offered it", async ({
  page,
  api,
  resource,
}) => {
  // The playground's locks are held by service redlock-console.
  await api.acquire([resource], 60_000);
  const detail = new LockDetailPage(page);

  await page.setExtraHTTPHeaders(asPerson("victor", ["everyone"]));
  await detail.goto(resource);
  await expect(
    page.getByText("Force release needs operator for service redlock-console; you are viewer."),
  ).toBeVisible();
  await expect(detail.forceReleaseButton).toHaveCount(0);
  // The header names the person and their role; the proxy owns the sign-in, so no "Log out".
  await expect(page.getByText("victor@example.com")).toBeVisible();
  await expect(page.getByText("viewer", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Log out" })).toHaveCount(0);
  // docs/images is the repository's: written on demand only, never by an ordinary run.
  if (KEEP_SCREENSHOTS) {
    await page.screenshot({ path: "docs/images/roles-viewer.png", animations: "disabled" });
  }

  await page.setExtraHTTPHeaders(asPerson("olivia", ["lock-operators", "everyone"]));
  await detail.goto(resource);
  await expect(detail.forceReleaseButton).toBeVisible();
  await detail.openForceRelease();
  // Deleting now is an admin's: the dialog says so instead of offering it.
  await expect(detail.dialog.getByText(/^Deleting a lock now needs admin/)).toBeVisible();
  if (KEEP_SCREENSHOTS) {
    await page.screenshot({ path: "docs/images/roles-operator.png", animations: "disabled" });
  }
});
