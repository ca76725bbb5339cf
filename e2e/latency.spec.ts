import { expect, test } from "./support/fixtures";

test("the latency charts draw points from the probe", async ({ page }) => {
  // A 5-minute window buckets by 10 s, so the 1-second probe fills two buckets (a line) quickly.
  await page.goto("/latency?window=5m");
  await expect(page.getByRole("heading", { level: 1, name: "Latency" })).toBeVisible();
  const quorumChart = page.getByRole("figure", { name: "Quorum latency p50 and p99 over time" });
  await expect(quorumChart).toBeVisible({ timeout: 15_000 });
  // One dot per bucket and percentile; the probe runs every second in the e2e stack.
  await expect
    .poll(() => quorumChart.locator(".recharts-line-dots circle").count(), { timeout: 15_000 })
    .toBeGreaterThan(0);
  const nodeChart = page.getByRole("figure", { name: "Per-node latency over time" });
  await expect(nodeChart.locator("g.recharts-line")).toHaveCount(5);
  await expect
    .poll(() => nodeChart.locator("path.recharts-line-curve").count(), { timeout: 30_000 })
    .toBe(5);
  await expect(page.getByText(/\d+ operations · p50 .* ms · p99 .* ms/)).toBeVisible();
});

test("the latency window is part of the URL", async ({ page }) => {
  await page.goto("/latency?window=5m");
  await expect(page.getByLabel("Window")).toHaveValue("5m");
  await page.getByLabel("Window").selectOption("1h");
  await expect(page).toHaveURL(/window=1h/);
});
