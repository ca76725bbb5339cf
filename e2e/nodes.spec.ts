import { OverviewPage } from "./pages/overview-page";
import { expect, test } from "./support/fixtures";

test("a SIGSTOPped node shows down, and up again after SIGCONT", async ({ page, masters }) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  const card = overview.nodeCard("node-3");
  await expect(card.getByText("up", { exact: true })).toBeVisible();

  masters.pause(2);
  try {
    await expect(card.getByText("down", { exact: true })).toBeVisible({ timeout: 15_000 });
    await expect(overview.nodes.getByText(/4 of 5 nodes up/)).toBeVisible();
  } finally {
    masters.resume(2);
  }
  await expect(card.getByText("up", { exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(overview.nodes.getByText(/5 of 5 nodes up/)).toBeVisible();
});

test("every node shows its address, latency and uptime", async ({ page, stack }) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  for (const [index, url] of stack.urls.entries()) {
    const card = overview.nodeCard(`node-${index + 1}`);
    await expect(card.getByText(new URL(url).host)).toBeVisible();
    await expect(card.getByText(/\d+(\.\d+)? ms/)).toBeVisible();
  }
});
