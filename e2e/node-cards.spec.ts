/**
 * The node cards (issue 41): a master shut down says "connection refused" and since when, the same
 * on every poll, filed as a node down and not as configuration; restarted empty, it says how many
 * held locks lack it and where they stand, with the fix; a long suggested LOCK_MATCH stays inside
 * its card at 1280 and 390 px. The master stopped here is started again before the test ends.
 */
import type { Page } from "@playwright/test";
import { OverviewPage } from "./pages/overview-page";
import { expect, test } from "./support/fixtures";
import { killMaster, startMasterEmpty } from "./support/restart-master";

const NODE = 2; // node-3

/** How far the page scrolls sideways, in px (0 or less: it fits). */
const overflowPx = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** The page fits 1280 and 390 px wide, then is back at the desktop width. */
async function expectFits(page: Page, what: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await overflowPx(page), `${what} at ${width}px`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("a master shut down, then restarted empty, says why, since when and what it costs the locks", async ({
  page,
  api,
  resource,
}) => {
  test.setTimeout(90_000);
  const resources = [0, 1, 2].map((index) => `${resource}:held-${index}`);
  const locks = await Promise.all(resources.map((name) => api.acquire([name], 60_000)));
  const overview = new OverviewPage(page);
  await overview.goto();
  for (const name of resources) await expect(overview.row(name)).toBeVisible();
  const card = overview.nodeCard("node-3");

  const port = await killMaster(NODE);
  try {
    const down = card.getByTestId("node-down");
    const cause = `connection refused: nothing listens on 127.0.0.1:${port}`;
    await expect(down).toContainText(cause, { timeout: 15_000 });
    await expect(down).toContainText(/down since \d\d:\d\d:\d\d \(\d+ s\)/);
    const since = /down since (\d\d:\d\d:\d\d)/.exec((await down.textContent()) ?? "")![1];
    // ioredis' own messages alternate every poll (~3 s): the card must not.
    for (let poll = 0; poll < 3; poll += 1) {
      await page.waitForTimeout(2_000);
      await expect(down).toContainText(`down since ${since}`);
      await expect(down).toContainText(cause);
      await expect(down).not.toContainText(/timed out|max retries/);
    }
    await expect(down).toContainText("Start redis-server there again");
    await expectFits(page, "a down card");
    // A node down is not a configuration matter: the configuration warnings do not list it.
    const configuration = overview.nodes.locator("details", { hasText: "configuration" });
    await expect(configuration).not.toContainText("did not answer");
  } finally {
    await startMasterEmpty(NODE);
  }

  const restart = card.getByTestId("node-restart");
  await expect(restart).toContainText(
    /restarted at \d\d:\d\d:\d\d with an empty keyspace: \d+ locks now hold on 4 of 5 nodes \(one more node lost and they stand on 3, the bare majority\)/,
    { timeout: 20_000 },
  );
  const counted = /: (\d+) locks now hold on 4 of 5/.exec((await restart.textContent()) ?? "")!;
  expect(Number(counted[1])).toBeGreaterThanOrEqual(resources.length);
  await expect(restart).toContainText("appendfsync always");
  await expectFits(page, "a restart card");
  await expect(card.getByTestId("node-down")).toHaveCount(0);
  await Promise.all(resources.map((name, index) => api.release([name], locks[index]!.lock.value)));
});

/**
 * Lock names whose every segment is a word: each is its own key shape, so LOCK_MATCH lists them
 * all (when the console has seen more than 8 lock shapes, it suggests first segments instead:
 * one, `nodecards*`, for all of these).
 */
const SHAPED = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"].map(
  (word) => `nodecards:${word}:inventory:reservation:warehouse:shipment:pallet`,
);

test("node cards fold their internals and fit 1280 and 390 px with a long suggested LOCK_MATCH", async ({
  page,
  api,
}) => {
  const locks = await Promise.all(SHAPED.map((name) => api.acquire([name], 60_000)));
  const overview = new OverviewPage(page);
  await overview.goto();
  const card = overview.nodeCard("node-1");
  const suggestion = card.getByTestId("node-lock-match-suggestion");
  // Alone or early in a run the console suggests these shapes. After more than 8 lock shapes it
  // suggests first segments, and the e2e resources' first segment ("e2e", with a digit) is an id:
  // their locks need `*`, so it suggests nothing, and only the rest is checked.
  const suggested = await suggestion.waitFor({ state: "attached", timeout: 20_000 }).then(
    () => true,
    () => false,
  );
  if (!suggested)
    test.info().annotations.push({
      type: "note",
      description: "no LOCK_MATCH suggested on node-1 (earlier specs' locks need `*`)",
    });

  const details = card.getByTestId("node-details");
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await overflowPx(page), `closed cards at ${width}px`).toBeLessThanOrEqual(0);
    if (suggested) await expect(suggestion).toBeHidden();
    await details.getByText("details", { exact: true }).click();
    await expect(details).toContainText(/eviction\s*noeviction/);
    expect(await overflowPx(page), `open details at ${width}px`).toBeLessThanOrEqual(0);
    if (suggested) {
      await expect(suggestion).toContainText("nodecards:alpha:inventory:reservation");
      const box = (await suggestion.boundingBox())!;
      const cardBox = (await card.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(cardBox.x + cardBox.width);
    }
    await details.getByText("details", { exact: true }).click();
  }
  await Promise.all(SHAPED.map((name, index) => api.release([name], locks[index]!.lock.value)));
});
