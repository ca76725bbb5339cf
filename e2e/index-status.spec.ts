/**
 * The live index as the overview shows it: every node card says the index watches it by keyspace
 * notifications and how fresh its data is; a lock written on the masters appears without a reload;
 * a paused node's card says its data is stale.
 */
import { randomBytes } from "node:crypto";
import { OverviewPage } from "./pages/overview-page";
import { expect, test } from "./support/fixtures";

test("every node card says it is watched and how fresh its data is", async ({ page }) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  for (const id of ["node-1", "node-2", "node-3", "node-4", "node-5"]) {
    const card = overview.nodeCard(id);
    await expect(card.getByTestId("node-index-mode")).toHaveText("watching");
    await expect(card.getByTestId("node-index-freshness")).toHaveText(
      /^as of (\d+\.\d s|\d+m \d\ds) ago$/,
    );
  }
  await expect(page.getByTestId("listing-notice")).toHaveCount(0);
});

test("a lock taken on the masters shows without a reload; a paused node's data shows stale", async ({
  page,
  masters,
  resource,
}) => {
  const overview = new OverviewPage(page);
  await overview.goto(`?match=${encodeURIComponent(resource)}`);
  await masters.setOn([0, 1, 2, 3, 4], resource, randomBytes(20).toString("hex"), 60_000);
  await expect(overview.row(resource)).toBeVisible();
  masters.pause(3);
  try {
    await expect(overview.nodeCard("node-4").getByTestId("node-index-mode")).toHaveText("stale", {
      timeout: 15_000,
    });
  } finally {
    masters.resume(3);
  }
  await expect(overview.nodeCard("node-4").getByTestId("node-index-mode")).toHaveText("watching", {
    timeout: 15_000,
  });
});
