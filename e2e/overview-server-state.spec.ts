/**
 * Issue 41: the overview shows the server's state as it changes. A holder keeps a 10 s lock with
 * using() (extended 500 ms before its validity ends) on a host kept busy by a CPU burner: sampled
 * every 250 ms for 25 s, its row never reads "expired" (no node dropped it), and each extension
 * shows pushed by the change stream: within SHOWN_WITHIN_MS, far under the 60 s poll a live page
 * keeps (app/_queries/locks.ts), so only the stream can have shown it (a stream's transition makes
 * the page read /api/locks again: a request between the two is the stream's, not a poll). How soon
 * it shows is a latency of this machine, not a test's (issue 48).
 * Also: the overview fits 1280 and 390 px wide with long names, owner labels and waiters.
 */
import { spawn, type ChildProcess } from "node:child_process";
import Redlock, { encodeValue, encodeWaiterMember, waitersKey } from "@redlock-console/redlock";
import { OverviewPage } from "./pages/overview-page";
import { expect, test } from "./support/fixtures";

const TTL_MS = 10_000;
const WATCH_MS = 25_000;
const SAMPLE_EVERY_MS = 250;
/**
 * A guard, not a latency: under the extension period (9.5 s), so an extension the page missed is
 * not matched to the next one's showing, and a twelfth of the live page's 60 s poll, so a showing
 * this soon is the stream's. Five times the second the stream takes at most.
 */
const SHOWN_WITHIN_MS = 5_000;

/** A CPU burner (the host is "busy"), stopped by its pid in `finally`. */
const burnCpu = (): ChildProcess =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });

test("an auto-extended lock never reads expired, and each extension shows pushed by the change stream, long before the next poll", async ({
  page,
  masters,
  resource,
}) => {
  test.setTimeout(90_000);
  const name = `${resource}:kept`;
  // Retries: a CI run saw the first acquire miss its 500 ms node timeout on three nodes beside
  // the burner (an ExecutionError before the page was looked at). The console is what is checked
  // here, not whether the holder's first try wins.
  const redlock = new Redlock(masters.clients, {
    retryCount: 3,
    retryDelay: 100,
    owner: { service: "payroll" },
    session: false,
  });
  let burner: ChildProcess | undefined;
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const holding = redlock.using([name], TTL_MS, () => stopped);
  try {
    const overview = new OverviewPage(page);
    await overview.goto(`?match=${encodeURIComponent(`${resource}:*`)}`);
    const row = overview.row(name);
    await expect(row.getByText("held", { exact: true })).toBeVisible();
    // The host is busy from here on, for every extension the test watches.
    burner = burnCpu();

    // When the nodes got each extension: master 0's PTTL jumps up (read every 50 ms).
    const extendedAt: number[] = [];
    let watching = true;
    const nodeWatch = (async () => {
      let previous = await masters.clients[0]!.pttl(name);
      while (watching) {
        const pttl = await masters.clients[0]!.pttl(name);
        if (pttl > previous + 2_000) extendedAt.push(Date.now());
        previous = pttl;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    // When the page showed each one: the row's countdown jumps up (a MutationObserver, exact).
    await row.locator("[data-remaining-ms]").evaluate((cell) => {
      const shown: number[] = [];
      (window as unknown as { shownAt: number[] }).shownAt = shown;
      let previous = Number(cell.getAttribute("data-remaining-ms"));
      const observe = (target: Element) =>
        new MutationObserver(() => {
          const now = Number(target.getAttribute("data-remaining-ms"));
          if (now > previous + 2_000) shown.push(Date.now());
          previous = now;
        }).observe(target, { attributes: true, attributeFilter: ["data-remaining-ms"] });
      observe(cell);
    });

    const texts: string[] = [];
    const startedMs = Date.now();
    while (Date.now() - startedMs < WATCH_MS) {
      texts.push((await row.innerText()).replace(/\s+/g, " "));
      await page.waitForTimeout(SAMPLE_EVERY_MS);
    }
    watching = false;
    await nodeWatch;
    const shownAt = await page.evaluate(() => (window as unknown as { shownAt: number[] }).shownAt);

    expect(texts.length).toBeGreaterThan(50);
    expect(texts.filter((text) => /expired/i.test(text))).toEqual([]);
    expect(texts.filter((text) => !/\bheld\b/.test(text))).toEqual([]);
    // 25 s of a 10 s lock extended 500 ms before its end: at least two extensions.
    expect(extendedAt.length).toBeGreaterThanOrEqual(2);
    for (const atMs of extendedAt) {
      const seen = shownAt.find((shown) => shown >= atMs - 100);
      expect(seen, `the extension at ${atMs} shown`).toBeDefined();
      expect(seen! - atMs).toBeLessThanOrEqual(SHOWN_WITHIN_MS);
    }
  } finally {
    stop();
    burner?.kill("SIGKILL");
    await holding.catch(() => {});
  }
});

for (const width of [1280, 390]) {
  test(`the overview fits ${width} px with long names, owners and waiters, each name readable`, async ({
    page,
    masters,
    resource,
  }) => {
    const names = [
      `${resource}:payroll-export-quarterly-reconciliation-eu-west-2024-06-01`,
      `${resource}:payroll-export-quarterly-reconciliation-eu-west-2024-06-02`,
    ];
    // Held for two days by a holder that extends a 10 s TTL ("2 d ↻ extended"), with owner labels
    // far wider than their column, and a contender waiting for an hour.
    const labels = JSON.stringify({
      service: "payroll-export-quarterly-reconciliation-service",
      host: "worker-pool-eu-west-1a-000000042.internal.example.com",
    });
    const acquiredAtMs = Date.now() - 2 * 86_400_000;
    await Promise.all(
      names.flatMap((name, index) =>
        masters.clients.map((client) =>
          client.set(
            name,
            encodeValue(String(index).padStart(40, "0"), labels, acquiredAtMs, 10_000),
            "PX",
            60_000,
          ),
        ),
      ),
    );
    const waiter = encodeWaiterMember({
      id: "w1",
      labelsJson: JSON.stringify({ service: "billing" }),
      sinceMs: Date.now() - 3_600_000,
    });
    await Promise.all(
      masters.clients.map((client) =>
        client.zadd(waitersKey(names[0]!), Date.now() + 60_000, waiter),
      ),
    );
    try {
      await page.setViewportSize({ width, height: 800 });
      const overview = new OverviewPage(page);
      await overview.goto(`?match=${encodeURIComponent(`${resource}:*`)}`);
      for (const name of names) {
        const link = overview.row(name).getByRole("link", { name, exact: true });
        await expect(link).toBeVisible();
        // The full name is the tooltip; the end that tells the two apart is shown.
        await expect(link).toHaveAttribute("title", name);
        await expect(link).toContainText(name.slice(-10));
      }
      await expect(overview.row(names[0]!).getByText("1 · ", { exact: false })).toBeVisible({
        visible: width > 760,
      });
      const scrollWidth = await page.evaluate(() => document.scrollingElement!.scrollWidth);
      expect(scrollWidth).toBeLessThanOrEqual(width);
      // No cell draws over another: each visible cell's box, widened to its text where it does
      // not clip, meets no other cell's box.
      const overlaps = await overview.row(names[0]!).evaluate((row) => {
        const boxes = [...row.querySelectorAll<HTMLElement>('[role="cell"]')]
          .filter((cell) => cell.offsetParent !== null)
          .map((cell) => {
            const rect = cell.getBoundingClientRect();
            const clips = getComputedStyle(cell).overflowX !== "visible";
            const right = clips ? rect.right : rect.left + Math.max(rect.width, cell.scrollWidth);
            const name = cell.className.replace(/^.*?_(\w+)__.*$/, "$1");
            return { name, left: rect.left, right, top: rect.top, bottom: rect.bottom };
          });
        return boxes.flatMap((a, i) =>
          boxes
            .slice(i + 1)
            .filter(
              (b) =>
                a.left < b.right - 1 &&
                b.left < a.right - 1 &&
                a.top < b.bottom - 1 &&
                b.top < a.bottom - 1,
            )
            .map((b) => `${a.name} overlaps ${b.name}`),
        );
      });
      expect(overlaps).toEqual([]);
    } finally {
      await Promise.all(
        masters.clients.map((client) => client.del(...names, waitersKey(names[0]!))),
      );
    }
  });
}
