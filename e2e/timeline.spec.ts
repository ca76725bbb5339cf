/**
 * The timeline in the browser: the events page follows its filters from the URL and shows a lock
 * that expired while held as it happens (pushed, no reload), and the next holder flagged as a
 * possible overlap under Problems; the lock page draws who held the lock and lists its
 * transitions, live.
 */
import { randomBytes } from "node:crypto";
import { LockDetailPage } from "./pages/lock-detail-page";
import { expect, test } from "./support/fixtures";

test("the events page: filters from the URL, an expiry while held pushed live", async ({
  page,
  masters,
  resource,
}) => {
  await page.goto(`/events?match=${encodeURIComponent(resource)}&kind=expired`);
  await expect(page.getByRole("heading", { level: 1, name: "Events" })).toBeVisible();
  await expect(page.getByLabel("Resource")).toHaveValue(resource);
  await expect(page.getByLabel("Kind")).toHaveValue("expired");
  await expect(page.getByTestId("history-horizon")).toContainText("History is complete since");
  const feed = page.getByRole("table", { name: "Lock transitions" });
  // Another lock's expiry, and this lock's acquisition: both filtered out.
  const other = `${resource}-other`;
  await masters.setOn([0, 1, 2, 3, 4], other, randomBytes(20).toString("hex"), 1_000);
  const writtenAt = Date.now();
  await masters.setOn([0, 1, 2, 3, 4], resource, randomBytes(20).toString("hex"), 1_000);
  const row = feed.locator("tbody tr", { hasText: resource });
  await expect(row).toHaveCount(1, { timeout: 10_000 });
  // Shown once it expired (1 s TTL): the rest is the push.
  test.info().annotations.push({
    type: "expiry → row on the events page (ms, includes the 1 s TTL)",
    description: String(Date.now() - writtenAt),
  });
  await expect(row).toHaveAttribute("data-kind", "expired");
  await expect(row.getByText("expired while held")).toBeVisible();
  await expect(feed.locator("tbody tr", { hasText: other })).toHaveCount(0);
  await expect(feed.locator("tbody tr[data-kind=acquired]")).toHaveCount(0);

  // A filter chosen in the page goes to the URL, so the filtered feed is a link.
  await page.getByLabel("Kind").selectOption("acquired");
  await expect(page).toHaveURL(/kind=acquired/);
  await expect(page).toHaveURL(
    new RegExp(`match=${encodeURIComponent(resource).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
  );
  // The next holder after that expiry may overlap it: listed under Problems, flagged in words.
  await masters.setOn([0, 1, 2, 3, 4], resource, randomBytes(20).toString("hex"), 5_000);
  await page.getByLabel("Kind").selectOption("problems");
  await expect(page).toHaveURL(/problems=1/);
  await expect(
    feed.locator("tbody tr[data-kind=acquired]").getByTestId("possible-overlap"),
  ).toContainText("expired while held (at ");
});

test("the lock page: who held it over the last hour, and its transitions live", async ({
  page,
  api,
  resource,
}) => {
  const grant = await api.acquire([resource], 30_000);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  const timeline = page.getByRole("region", { name: "Timeline" });
  await expect(
    timeline.getByRole("figure", { name: "Who held this lock over the last hour" }),
  ).toBeVisible();
  const transitions = timeline.getByRole("table", { name: "Transitions of this lock" });
  await expect(transitions.locator("tbody tr[data-kind=acquired]")).toHaveCount(1);
  await expect(timeline.getByText("1 hold(s) in the last hour")).toBeVisible();
  const pushedAt = Date.now();
  await api.release([resource], grant.lock.value);
  await expect(transitions.locator("tbody tr[data-kind=released]")).toHaveCount(1);
  test.info().annotations.push({
    type: "release → row on the lock page (ms)",
    description: String(Date.now() - pushedAt),
  });
  await expect(transitions.locator("tbody tr").first()).toHaveAttribute("data-kind", "released");
});
