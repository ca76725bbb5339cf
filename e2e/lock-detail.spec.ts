import { LockDetailPage } from "./pages/lock-detail-page";
import { OverviewPage } from "./pages/overview-page";
import { digestOf } from "./support/digest";
import { expect, test } from "./support/fixtures";

test("a resource name with a slash, spaces, a percent escape and unicode opens its own detail page", async ({
  page,
  api,
  resource,
}) => {
  const name = `${resource}/nightly report %41 ü`;
  const { lock } = await api.acquire([name], 30_000);
  const overview = new OverviewPage(page);
  await overview.goto();
  await overview.row(name).getByRole("link", { name, exact: true }).click();

  const detail = new LockDetailPage(page);
  await expect(page.getByRole("heading", { level: 1, name, exact: true })).toBeVisible();
  await expect(detail.perNodeTable.getByText(digestOf(lock.value))).toHaveCount(5);
  await api.release([name], lock.value);
});

test("the detail page shows each node's value and a shrinking time-to-live bar", async ({
  page,
  api,
  masters,
  resource,
}) => {
  const { lock } = await api.acquire([resource], 30_000);
  await masters.setOn([4], resource, "e".repeat(40), 30_000); // node-5 now holds another value
  const detail = new LockDetailPage(page);
  await detail.goto(resource);

  await expect(detail.perNodeTable.getByText("another value")).toHaveCount(1);
  const bar = page.getByRole("progressbar", { name: "node-1 time to live" });
  const first = Number(await bar.getAttribute("aria-valuenow"));
  await page.waitForTimeout(1_200);
  const later = Number(await bar.getAttribute("aria-valuenow"));
  expect(first - later).toBeGreaterThan(700);
  await expect(page.getByRole("table", { name: "Audit entries for this resource" })).toContainText(
    "acquire",
  );
  await api.release([resource], lock.value);
  await masters.deleteEverywhere(resource);
});

test("the detail page shows the fencing token from the nodes' counters, and the next holder's", async ({
  page,
  api,
  resource,
}) => {
  const { lock } = await api.acquire([resource], 30_000, true);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  const token = String(lock.fencingToken);
  await expect(detail.summary.getByText("Fencing token", { exact: true })).toBeVisible();
  await expect(detail.summary.getByText(token, { exact: true })).toBeVisible();
  await expect(detail.perNodeTable.getByRole("cell", { name: token, exact: true })).toHaveCount(5);

  await api.release([resource], lock.value);
  await expect(page.getByText(`The last fencing token recorded for it is ${token}.`)).toBeVisible();
  const { lock: next } = await api.acquire([resource], 30_000, true);
  expect(next.fencingToken).toBeGreaterThan(lock.fencingToken!);
  await expect(detail.summary.getByText(String(next.fencingToken), { exact: true })).toBeVisible();
  await api.release([resource], next.value);
});
