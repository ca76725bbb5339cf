import Redlock, { type Lock } from "@redlock-console/redlock";
import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { OverviewPage } from "./pages/overview-page";
import { expect, test } from "./support/fixtures";

test("a semaphore is one row, and its page says who holds each permit, each with its own force-release", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const name = `${resource}:exports`;
  const redlock = new Redlock(masters.clients, {
    retryCount: 0,
    owner: { service: "exports" },
    session: false,
  });
  const semaphore = redlock.semaphore(name, 3);
  const held: Lock[] = [await semaphore.acquire(60_000), await semaphore.acquire(60_000)];
  try {
    await new LoginPage(page).login(stack.adminToken);
    const overview = new OverviewPage(page);
    await overview.goto(`?match=${encodeURIComponent(`*${resource}*`)}`);
    const row = overview.row(name);
    await expect(row.getByText("semaphore: 2 of 3 permits in use")).toBeVisible();
    await expect(overview.table.getByRole("link", { name: /#\d$/ })).toHaveCount(0);

    await row.getByRole("link", { name, exact: true }).click();
    const detail = new LockDetailPage(page);
    await expect(page.getByRole("heading", { level: 1, name, exact: true })).toBeVisible();
    const permits = page.getByRole("table", { name: "Permits" });
    const heldLines = permits.getByRole("cell", {
      name: /^permit #\d of 3: held by exports \/ .+ for \d+\.\d s more$/,
    });
    await expect(heldLines).toHaveCount(2);
    await expect(permits.getByRole("cell", { name: /^permit #\d of 3: free$/ })).toHaveCount(1);
    // Its name is no key: the page does not show an empty history for it, it says where it is.
    await expect(page.getByText("The history is kept per permit")).toBeVisible();
    await expect(page.getByText("No transition of this lock since the history began.")).toHaveCount(
      0,
    );

    // Each holder's force-release acts on its permit's key, as on any lock.
    const index = held[0]!.permit!;
    const first = `{${name}}#${index}`;
    await page.getByRole("button", { name: `Force-release permit #${index}…` }).click();
    await expect(detail.dialog).toBeVisible();
    await expect(detail.forceReleaseDialog.title).toContainText(first);
    await detail.confirmForceRelease(`semaphore e2e ${resource}`, "release-now");
    await expect(detail.dialog.getByRole("status")).toContainText("deleted on 5 of 5 nodes");
    await detail.dialog.getByRole("button", { name: "Close" }).click();
    await expect(permits.getByRole("cell", { name: `permit #${index} of 3: free` })).toBeVisible();
    await expect(heldLines).toHaveCount(1);
    expect(await masters.valuesOf(first)).toEqual([null, null, null, null, null]);
  } finally {
    await Promise.all(held.map((lock) => lock.release().catch(() => undefined)));
  }
});
