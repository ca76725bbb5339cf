/**
 * Runs on desktop, at four widths, and (as the "phone" project) on a phone at its own width: no
 * page may scroll sideways. The phone project differs from desktop's 390 px in its device (touch,
 * pixel ratio, user agent), not in its widths, so it tries only its own.
 */
import { expect, test } from "./support/fixtures";

const PAGES = ["/", "/sessions", "/events", "/latency", "/playground", "/audit", "/login"];
const DESKTOP_WIDTHS = [1280, 1024, 768, 390];

for (const pathname of PAGES) {
  test(`${pathname} fits every width without horizontal scrolling`, async ({
    page,
    api,
    resource,
  }, testInfo) => {
    const { lock } = await api.acquire(
      [`${resource}:a-rather-long-resource-name-that-must-not-break-the-layout`],
      30_000,
    );
    const phoneWidth = page.viewportSize()?.width ?? 390;
    const widths = testInfo.project.name === "phone" ? [phoneWidth] : DESKTOP_WIDTHS;
    for (const width of widths) {
      if (testInfo.project.name !== "phone") await page.setViewportSize({ width, height: 800 });
      await page.goto(pathname);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      const overflowPx = await page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflowPx, `${pathname} at ${width}px`).toBeLessThanOrEqual(0);
    }
    await api.release(
      [`${resource}:a-rather-long-resource-name-that-must-not-break-the-layout`],
      lock.value,
    );
  });
}

test("the lock detail page fits a phone", async ({ page, api, resource }) => {
  const { lock } = await api.acquire([resource], 30_000);
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`/locks/${encodeURIComponent(resource)}`);
  await expect(page.getByRole("table", { name: "Per-node holders" })).toBeVisible();
  const overflowPx = await page.evaluate(
    () => document.documentElement.scrollWidth - window.innerWidth,
  );
  expect(overflowPx).toBeLessThanOrEqual(0);
  await api.release([resource], lock.value);
});
