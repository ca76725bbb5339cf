import { OverviewPage } from "./pages/overview-page";
import { expect, test } from "./support/fixtures";

const ROWS = 10_000;

test("10,000 locks stay virtualised: few DOM rows, and scrolling reaches the last one", async ({
  page,
  masters,
  resource,
}) => {
  test.setTimeout(90_000);
  const keys = Array.from(
    { length: ROWS },
    (_, index) => `${resource}:${String(index).padStart(5, "0")}`,
  );
  const value = "9".repeat(40);
  await Promise.all(
    masters.clients.map((client) => {
      const pipeline = client.pipeline();
      for (const key of keys) pipeline.set(key, value, "PX", 120_000);
      return pipeline.exec();
    }),
  );

  try {
    const overview = new OverviewPage(page);
    await overview.goto(`?match=${encodeURIComponent(`${resource}:*`)}`);
    await expect(page.getByText(`${ROWS} locks`)).toBeVisible({ timeout: 30_000 });
    const domRows = await overview.table.getByRole("row").count();
    expect(domRows).toBeLessThan(100);

    await overview.table.getByRole("rowgroup", { name: "Lock rows" }).evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await expect(overview.row(keys.at(-1)!)).toBeVisible();
    await expect(overview.row(keys.at(-1)!).getByText("held", { exact: true })).toBeVisible();
  } finally {
    await Promise.all(masters.clients.map((client) => client.unlink(...keys)));
  }
});
