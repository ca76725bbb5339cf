/**
 * Issue 32 in the browser. Row 3: the Events page whose stream is refused (429) says in words that
 * it is not live, reconnects with backoff by itself, and then shows what happened meanwhile.
 * Row 14: an owner label with bidi controls and invisible characters is shown with them escaped.
 */
import { randomBytes } from "node:crypto";
import { expect, test } from "./support/fixtures";

test("the events page: a refused stream says it is not live, reconnects with backoff, then pushes again", async ({
  page,
  masters,
  resource,
  consoleErrors,
}) => {
  // The refusals this test makes: the browser logs each failed load.
  consoleErrors.allow(/status of 429/);
  let refused = 0;
  await page.route("**/api/events/stream**", async (route) => {
    if (refused < 2) {
      refused += 1;
      await route.fulfill({
        status: 429,
        headers: { "retry-after": "1", "content-type": "application/json" },
        body: JSON.stringify({ error: { code: "rate_limited", message: "too many streams" } }),
      });
      return;
    }
    await route.continue();
  });
  await page.goto(`/events?match=${encodeURIComponent(resource)}`);
  const status = page.getByTestId("live-status");
  await expect(status).toHaveAttribute("data-live", "retrying");
  await expect(status).toContainText("Not live");
  await expect(status).toContainText("Reconnecting");
  // Written while the page was not live: shown once it reconnects (resumed after its last id).
  await masters.setOn([0, 1, 2, 3, 4], resource, randomBytes(20).toString("hex"), 60_000);
  await expect(status).toHaveAttribute("data-live", "live", { timeout: 15_000 });
  await expect(status).toContainText("Live");
  expect(refused).toBe(2);
  const feed = page.getByRole("table", { name: "Lock transitions" });
  await expect(feed.locator("tbody tr", { hasText: resource })).toHaveCount(1, {
    timeout: 10_000,
  });
  await masters.deleteEverywhere(resource);
});

test("an owner label with bidi controls and invisible characters shows them escaped, not applied", async ({
  page,
  masters,
}) => {
  const resource = `e2e:bidi:${randomBytes(4).toString("hex")}`;
  const value = randomBytes(20).toString("hex");
  await masters.setOn([0, 1, 2, 3, 4], resource, value, 60_000);
  await masters.putOwner(
    resource,
    {
      value,
      labels: { service: "evil\u202egnp.exe", host: "a\u200bb" },
      acquiredAt: Date.now() - 1_000,
      extensions: 0,
    },
    60_000,
  );
  try {
    await page.goto(`/locks/${encodeURIComponent(resource)}`);
    const main = page.getByRole("main");
    await expect(main.getByText("evil\\u202Egnp.exe").first()).toBeVisible();
    await expect(main.getByText("a\\u200Bb").first()).toBeVisible();
    const text = await main.innerText();
    expect(text).not.toContain("\u202e");
    expect(text).not.toContain("\u200b");
  } finally {
    await masters.deleteWithOwnership(resource);
  }
});
