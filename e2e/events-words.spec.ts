/**
 * Issue 41 items 4–5 in the browser, on the real stack: a holder SIGSTOPped while it holds expires,
 * and the Events page and the lock's timeline say why in words (its session was unresponsive:
 * paused or blocked), with what to do; its extensions fold into one row with their count; the
 * holder is named service / host / pid, its hold in words, its lock a link. The Events page has a
 * time range and a UTC switch; the lock's transitions have a kind filter. No page scrolls sideways.
 */
import { hostname } from "node:os";
import type { Page } from "@playwright/test";
import { LockDetailPage } from "./pages/lock-detail-page";
import { startHolder, type HolderProcess } from "./support/holder-process";
import { expect, test } from "./support/fixtures";

/** The page fits `widthPx` without scrolling sideways. */
async function expectNoSidewaysScroll(page: Page, widthPx: number) {
  await page.setViewportSize({ width: widthPx, height: 800 });
  const overflowPx = await page.evaluate(
    () => document.documentElement.scrollWidth - window.innerWidth,
  );
  expect(overflowPx, `${page.url()} at ${widthPx} px`).toBeLessThanOrEqual(0);
}

test("a SIGSTOPped holder's expiry says its cause in words on the Events page and the lock's timeline; its extensions fold with a count", async ({
  page,
  stack,
  resource,
}) => {
  test.setTimeout(90_000);
  let holder: HolderProcess | undefined;
  try {
    holder = await startHolder({
      urls: stack.urls,
      resource,
      ttlMs: 3_000,
      service: "words-worker",
    });
    const name = `words-worker / ${hostname()} / ${holder.pid}`;
    await page.goto(`/events?match=${encodeURIComponent(resource)}`);
    const feed = page.getByRole("table", { name: "Lock transitions" });
    // Extended every second: a few extensions, folded into one row however many arrive.
    const fold = feed.locator("tbody tr[data-kind=extended]");
    await expect(fold.getByTestId("extended-fold")).toContainText(
      /^extended ([3-9]|\d\d+)× since \d\d:\d\d:\d\d$/,
      { timeout: 15_000 },
    );
    await expect(fold).toHaveCount(1);
    await expect(fold).toContainText(name);

    holder.pause();
    // The expiry (3 s TTL) is emitted once its session is read, 3.5 s later: unresponsive.
    const expired = feed.locator("tbody tr[data-kind=expired]");
    await expect(expired.getByTestId("expiry-cause")).toContainText(
      "Why: the holder's session was unresponsive (last heartbeat",
      { timeout: 20_000 },
    );
    await expect(expired.getByTestId("expiry-cause")).toContainText("paused or blocked");
    await expect(expired).toContainText("Find the paused process");
    await expect(expired).toContainText(name);
    await expect(expired.locator("td").nth(4)).toHaveText(/^\d+(\.\d)? s$/);
    await expect(expired.getByRole("link", { name: resource })).toHaveAttribute(
      "href",
      `/locks/${encodeURIComponent(resource)}`,
    );

    // Unfolded on demand: every extension of the hold, then folded again.
    const count = Number(
      /extended (\d+)×/.exec((await fold.first().getByTestId("extended-fold").innerText())!)![1],
    );
    await fold
      .first()
      .getByRole("button", { name: `Show the ${count} extensions` })
      .click();
    await expect(feed.locator("tbody tr[data-kind=extended]")).toHaveCount(count + 1);
    await feed.getByRole("button", { name: `Fold the ${count} extensions` }).click();
    await expect(feed.locator("tbody tr[data-kind=extended]")).toHaveCount(1);
    await expectNoSidewaysScroll(page, 1280);
    await expectNoSidewaysScroll(page, 390);

    // The lock's timeline: the cause under the hold chart and in its transitions.
    await page.setViewportSize({ width: 1280, height: 800 });
    await new LockDetailPage(page).goto(resource);
    const timeline = page.getByRole("region", { name: "Timeline" });
    await expect(timeline.getByTestId("expiry-causes")).toContainText(
      `(${name}). Why: the holder's session was unresponsive`,
    );
    const transitions = timeline.getByRole("table", { name: "Transitions of this lock" });
    await expect(
      transitions.getByRole("columnheader", { name: /^When \(UTC[+−]\d\d:\d\d\)$/ }),
    ).toBeVisible();
    await expect(transitions.getByTestId("expiry-cause")).toContainText("paused or blocked");

    // The kind filter: expiries alone, then acquisitions alone, then everything again (a gap,
    // which concerns every lock, aside).
    const kind = timeline.getByLabel("Kind");
    const rows = transitions.locator("tbody tr:not([data-kind=gap])");
    await kind.selectOption("expired");
    await expect(transitions.locator("tbody tr")).toHaveCount(1);
    await expect(transitions.locator("tbody tr")).toHaveAttribute("data-kind", "expired");
    await kind.selectOption("acquired");
    await expect(transitions.locator("tbody tr")).toHaveCount(1);
    await expect(transitions.locator("tbody tr")).toHaveAttribute("data-kind", "acquired");
    await kind.selectOption("");
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(0)).toHaveAttribute("data-kind", "expired");
    await expect(rows.nth(1)).toHaveAttribute("data-kind", "extended");
    await expect(rows.nth(2)).toHaveAttribute("data-kind", "acquired");
    await expectNoSidewaysScroll(page, 390);
  } finally {
    holder?.kill();
  }
});

test.describe("in a browser whose zone is not UTC", () => {
  test.use({ timezoneId: "Asia/Kolkata" });

  test("the Events page names its zone, switches to UTC, and keeps a time range in the URL", async ({
    page,
    api,
    resource,
  }) => {
    const { lock } = await api.acquire([resource], 30_000);
    // Released only once the console recorded the acquisition: a lock released within the ~10 ms
    // before the console reads its key is a brief hold, counted but never a transition.
    await expect
      .poll(async () => {
        const reply = await page.request.get(
          `/api/events?resource=${encodeURIComponent(resource)}`,
        );
        const { transitions } = (await reply.json()) as { transitions: Array<{ kind: string }> };
        return transitions.map((transition) => transition.kind);
      })
      .toContain("acquired");
    await api.release([resource], lock.value);
    await page.goto(`/events?match=${encodeURIComponent(resource)}`);
    const feed = page.getByRole("table", { name: "Lock transitions" });
    const released = feed.locator("tbody tr[data-kind=released]");
    await expect(released).toHaveCount(1);
    // Chromium's ICU may name the zone by its older alias.
    await expect(page.getByTestId("time-zone")).toContainText(
      /Times in Asia\/(Kolkata|Calcutta), UTC\+05:30/,
    );
    await expect(feed.getByRole("columnheader", { name: "When (UTC+05:30)" })).toBeVisible();
    const localText = await released.locator("td").first().innerText();

    await page.getByLabel("Show times in UTC").check();
    await expect(page).toHaveURL(/utc=1/);
    await expect(feed.getByRole("columnheader", { name: "When (UTC)" })).toBeVisible();
    await expect(page.getByTestId("time-zone")).toContainText("Times in UTC");
    const utcText = await released.locator("td").first().innerText();
    const asUtcMs = (text: string) => Date.parse(`${text.replace(" ", "T")}Z`);
    expect(asUtcMs(localText) - asUtcMs(utcText)).toBe(5.5 * 3_600_000);

    // A range is fixed when chosen (`since` in the URL): the row of a moment ago is in it.
    await page.getByLabel("Time range").selectOption("15m");
    await expect(page).toHaveURL(/range=15m&since=\d{13}|since=\d{13}.*range=15m/);
    await expect(page.getByTestId("time-zone")).toContainText("showing transitions since");
    await expect(released).toHaveCount(1);
    // A range that starts after it lists nothing, and says so.
    const url = new URL(page.url());
    url.searchParams.set("since", String(Date.now() + 60_000));
    await page.goto(url.pathname + url.search);
    await expect(page.getByText("No transition matches in this time range.")).toBeVisible();
    await expect(page.getByLabel("Show times in UTC")).toBeChecked();
    await expectNoSidewaysScroll(page, 1280);
    await expectNoSidewaysScroll(page, 390);
  });
});
