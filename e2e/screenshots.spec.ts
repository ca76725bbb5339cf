/**
 * Visits every page, in light and dark, each shown with what it must show and no console error;
 * with E2E_SCREENSHOTS=1 it also keeps a full-page screenshot of each under
 * test-results/screenshots/ (and in the HTML report), for docs/images. The screenshots are for
 * people, not assertions, and a dozen full pages cost the suite about a minute: on demand.
 */
import path from "node:path";
import type { Page, TestInfo } from "@playwright/test";
import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { PlaygroundPage } from "./pages/playground-page";
import { expect, test } from "./support/fixtures";

const SCREENSHOT_DIR = path.resolve("test-results/screenshots");

const KEEP_SCREENSHOTS = process.env.E2E_SCREENSHOTS === "1";

async function keep(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  if (!KEEP_SCREENSHOTS) return;
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`screenshot of every page (${colorScheme})`, async ({
    page,
    api,
    masters,
    stack,
    resource,
    consoleErrors,
  }, testInfo) => {
    consoleErrors.allow(/status of 404 .*\/no-such-page/); // the not-found page answers 404 on purpose
    await page.emulateMedia({ colorScheme });
    const { lock } = await api.acquire([`${resource}:orders`], 60_000, true);
    await masters.setOn([0, 1], `${resource}:partial`, "1".repeat(40), 60_000);

    await page.goto("/login");
    await expect(page.getByLabel("Admin token")).toBeVisible();
    await keep(page, testInfo, `login-${colorScheme}`);
    await new LoginPage(page).login(stack.adminToken);

    await expect(page.getByRole("table", { name: "Locks" })).toBeVisible();
    await keep(page, testInfo, `overview-${colorScheme}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await keep(page, testInfo, `overview-phone-${colorScheme}`);
    await page.setViewportSize({ width: 1280, height: 800 });

    const detail = new LockDetailPage(page);
    await detail.goto(`${resource}:orders`);
    await expect(detail.perNodeTable).toBeVisible();
    await keep(page, testInfo, `lock-detail-${colorScheme}`);
    await detail.openForceRelease();
    await keep(page, testInfo, `force-release-dialog-${colorScheme}`);
    await page.keyboard.press("Escape");

    const playground = new PlaygroundPage(page);
    await playground.goto();
    await playground.acquire([`${resource}:playground`], 15_000, true);
    await expect(playground.heldLock).toBeVisible();
    await keep(page, testInfo, `playground-${colorScheme}`);

    await page.goto("/latency");
    await expect(page.getByRole("figure", { name: /Quorum latency/ })).toBeVisible({
      timeout: 15_000,
    });
    await keep(page, testInfo, `latency-${colorScheme}`);

    await page.goto("/events");
    await expect(page.getByTestId("history-horizon")).toBeVisible();
    await keep(page, testInfo, `events-${colorScheme}`);

    await page.goto("/sessions");
    await expect(page.getByRole("heading", { level: 1, name: "Holder sessions" })).toBeVisible();
    await keep(page, testInfo, `sessions-${colorScheme}`);

    await page.goto("/audit");
    await expect(page.getByRole("table", { name: "Audit entries" })).toBeVisible();
    await keep(page, testInfo, `audit-${colorScheme}`);

    await page.goto("/no-such-page");
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await keep(page, testInfo, `not-found-${colorScheme}`);

    await api.release([`${resource}:orders`], lock.value);
    await masters.deleteEverywhere(`${resource}:partial`, `${resource}:playground`);
  });
}
