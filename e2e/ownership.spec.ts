/**
 * Who holds a lock, since when, and who waits: owner entries and waiters written on the five masters
 * exactly as the library writes them, read back by the overview, the lock page and the force-release
 * dialog.
 */
import { randomBytes } from "node:crypto";
import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { OverviewPage } from "./pages/overview-page";
import { expect, test } from "./support/fixtures";
import type { Masters } from "./support/redis";

const TTL_MS = 60_000;

/** A lock on all five nodes with the owner entry of its value, acquired `heldForMs` ago. */
async function ownedLock(
  masters: Masters,
  key: string,
  labels: Record<string, string>,
  heldForMs: number,
): Promise<string> {
  const value = randomBytes(20).toString("hex");
  await masters.setOn([0, 1, 2, 3, 4], key, value, TTL_MS);
  await masters.putOwner(
    key,
    { value, labels, acquiredAt: Date.now() - heldForMs, extensions: 3 },
    TTL_MS,
  );
  return value;
}

test("the overview and the lock page show the owner, a ticking age and the waiters", async ({
  page,
  masters,
  resource,
}) => {
  await ownedLock(
    masters,
    resource,
    { service: "billing", host: "worker-7", pid: "4242", purpose: "invoices" },
    90_000,
  );
  await masters.putWaiter(
    resource,
    {
      id: "0123456789abcdef",
      labels: { service: "invoicer", host: "worker-9" },
      since: Date.now() - 20_000,
    },
    Date.now() + TTL_MS,
  );
  const overview = new OverviewPage(page);
  await overview.goto(`?match=${encodeURIComponent(resource)}`);

  const row = overview.row(resource);
  await expect(row.getByText("billing / worker-7 / 4242")).toBeVisible();
  await expect(row.getByText(/^1 ·/)).toBeVisible();
  await expect(row.getByTitle("The holder extended its lock since acquiring it")).toHaveText(
    /extended 3×/,
  );
  const heldForMs = async () =>
    Number(await row.locator("[data-elapsed-ms]").first().getAttribute("data-elapsed-ms"));
  const first = await heldForMs();
  // The page's estimate of the server clock is a lower bound, behind by up to one response's time
  // (hooks/server-clock.ts): 81 ms on a loaded CI machine once. A third of the age covers any
  // response; an age counted from page load instead of acquiredAt would still be ~0 and fail.
  expect(first).toBeGreaterThanOrEqual(90_000 - 30_000);
  expect(first).toBeLessThan(90_000 + 30_000);
  await expect.poll(heldForMs, { timeout: 20_000 }).toBeGreaterThanOrEqual(first + 2_000); // it ticks

  await row.getByRole("link", { name: resource, exact: true }).click();
  const detail = new LockDetailPage(page);
  await expect(detail.summary).toContainText("service=billing");
  await expect(detail.summary).toContainText("purpose=invoices");
  await expect(detail.summary).toContainText("extended 3×");
  await expect(detail.summary.getByLabel(/^held for 1m \d\ds$/)).toBeVisible();
  await expect(detail.perNodeTable.getByText("billing / worker-7 / 4242")).toHaveCount(5);
  const waiters = page.getByRole("table", { name: "Waiters" });
  await expect(waiters.getByRole("row", { name: /0123456789abcdef/ })).toContainText(
    "service=invoicer",
  );
  await expect(waiters.getByRole("row", { name: /0123456789abcdef/ })).toContainText("5/5");
  await masters.deleteWithOwnership(resource);
});

test("a lock of another library names its format, and a stale owner entry is never shown", async ({
  page,
  masters,
  resource,
}) => {
  await masters.setOn([0, 1, 2, 3, 4], resource, "f".repeat(40), TTL_MS);
  // An owner entry left by an earlier holder (another value): it must not be taken for this one's.
  await masters.putOwner(
    resource,
    {
      value: "e".repeat(40),
      labels: { service: "ghost" },
      acquiredAt: Date.now() - 1_000,
      extensions: 0,
    },
    TTL_MS,
  );
  const overview = new OverviewPage(page);
  await overview.goto(`?match=${encodeURIComponent(resource)}`);
  await expect(
    overview.row(resource).getByText("unknown — node-redlock/redsync string"),
  ).toBeVisible();
  await expect(overview.row(resource)).not.toContainText("ghost");
  await masters.deleteWithOwnership(resource);
});

test("filter and group by an owner label, kept in the URL", async ({ page, masters, resource }) => {
  await ownedLock(masters, `${resource}:a`, { service: "billing", host: "h1" }, 1_000);
  await ownedLock(masters, `${resource}:b`, { service: "reports", host: "h2" }, 1_000);
  await ownedLock(masters, `${resource}:c`, { service: "billing", host: "h3" }, 1_000);
  await masters.setOn([0, 1, 2, 3, 4], `${resource}:foreign`, "d".repeat(40), TTL_MS);
  const overview = new OverviewPage(page);
  await overview.goto(`?match=${encodeURIComponent(`${resource}:*`)}`);
  await expect(overview.table.getByRole("row")).toHaveCount(5);

  await page.getByLabel("Owner label").fill("service=billing");
  await expect(page).toHaveURL(/owner=service%3Dbilling/);
  await expect(overview.table.getByRole("row")).toHaveCount(3);
  await expect(overview.row(`${resource}:b`)).toHaveCount(0);

  await page.getByLabel("Owner label").fill("");
  await page.getByLabel("Group by").selectOption("service");
  await expect(page).toHaveURL(/group=service/);
  const headers = overview.table.getByRole("rowheader");
  await expect(headers).toHaveText([
    "service=billing (2 locks)",
    "service=reports (1 lock)",
    "no service label (1 lock)",
  ]);

  // A deep link restores both.
  await page.goto(`/?match=${encodeURIComponent(`${resource}:*`)}&owner=host&group=service`);
  await expect(page.getByLabel("Group by")).toHaveValue("service");
  await expect(page.getByLabel("Owner label")).toHaveValue("host");
  await expect(headers).toHaveText(["service=billing (2 locks)", "service=reports (1 lock)"]);
  await masters.deleteWithOwnership(
    `${resource}:a`,
    `${resource}:b`,
    `${resource}:c`,
    `${resource}:foreign`,
  );
});

test("the force-release dialog names who loses the lock and since when", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  await ownedLock(
    masters,
    resource,
    { service: "billing", host: "worker-7", pid: "4242" },
    125_000,
  );
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  await detail.openForceRelease();
  const loses = detail.dialog.getByLabel("Who loses the lock");
  await expect(loses).toContainText("service=billing");
  await expect(loses).toContainText("host=worker-7");
  await expect(loses).toContainText(
    /Holding it since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(for 2m \d\ds\), extended 3×/,
  );
  await detail.dialog.getByRole("button", { name: "Cancel" }).click();
  await masters.deleteWithOwnership(resource);
});
