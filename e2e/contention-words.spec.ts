/**
 * Issue 41 item 5, the Contention page on the real stack: 8 contenders wait, some on the same lock,
 * some in a chain, one session waiting for two locks. The chains name 6 of those waits (one per
 * participant); the page lists all 8, each waiter and holder as service / host / pid, each lock a
 * link, each wait's length in words. Holders and waiter entries are written by hand in the
 * library's formats (as contention.spec.ts does).
 */
import { randomBytes } from "node:crypto";
import { FakeHolderSession } from "./support/holder-session";
import { expect, test } from "./support/fixtures";
import type { Masters } from "./support/redis";

const ALL_NODES = [0, 1, 2, 3, 4];

async function holds(masters: Masters, resource: string, holder: FakeHolderSession) {
  await masters.setOn(ALL_NODES, resource, holder.value(60_000), 60_000);
}

/** `waiter` waits for `resource` since `waitedMs` ago (its entry lasts 60 s). */
async function waits(masters: Masters, resource: string, waiter: FakeHolderSession, waitedMs = 0) {
  await masters.putWaiter(
    resource,
    {
      id: randomBytes(8).toString("hex"),
      labels: waiter.labels,
      since: Date.now() - waitedMs,
      session: waiter.id,
    },
    Date.now() + 60_000,
  );
}

test("the Contention page shows 8 of 8 waits, with holders as service / host / pid and durations in words", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const names = ["alpha", "beta", "gamma", "delta", "eps", "phi", "eta", "omega"];
  const sessions = await Promise.all(
    names.map(async (service, n) => {
      const opened = await FakeHolderSession.open(stack.urls, {
        service,
        host: "e2e-host",
        pid: String(4_100 + n),
      });
      await opened.keepAlive();
      return opened;
    }),
  );
  const [a, b, c, d, e, f, g, h] = sessions as [
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
  ];
  const [l1, l2, l3, l5] = ["l1", "l2", "l3", "l5"].map((name) => `${resource}:${name}`) as [
    string,
    string,
    string,
    string,
  ];
  try {
    // A holds L1 and L3; B holds L2 and waits for L1 (a chain C → B → A); H holds L5.
    await holds(masters, l1, a);
    await holds(masters, l2, b);
    await holds(masters, l3, a);
    await holds(masters, l5, h);
    await waits(masters, l1, b);
    await waits(masters, l1, d, 738_658);
    await waits(masters, l1, d); // a second contender of D's process on the same lock
    await waits(masters, l1, f);
    await waits(masters, l2, c);
    await waits(masters, l2, e);
    await waits(masters, l3, c); // C's second wait, on another lock
    await waits(masters, l5, g);

    await page.goto("/contention");
    await expect(page.getByRole("heading", { level: 1, name: "Contention" })).toBeVisible();
    await expect(page.getByText("8 contenders wait now.")).toBeVisible({ timeout: 10_000 });
    await expect(page.getByTestId("wait-list-count")).toHaveText("All 8 waits, longest first.");
    const table = page.getByRole("table", { name: "Every wait now" });
    const rows = table.locator("tbody tr");
    await expect(rows).toHaveCount(8);
    const phrase = (held: FakeHolderSession) =>
      `${held.labels.service} / e2e-host / ${held.labels.pid} (session ${held.id.slice(0, 8)})`;
    // Longest first: D's wait of 12 min, in words, behind A.
    await expect(rows.first()).toContainText(phrase(d));
    await expect(rows.first()).toContainText(phrase(a));
    await expect(rows.first().locator("td").nth(3)).toHaveText(/^12 min \d+ s$/);
    for (const [waiter, lock, holder] of [
      [b, l1, a],
      [d, l1, a],
      [f, l1, a],
      [c, l2, b],
      [e, l2, b],
      [c, l3, a],
      [g, l5, h],
    ] as const) {
      const row = rows.filter({ hasText: phrase(waiter) }).filter({ hasText: lock });
      await expect(row.first(), `${waiter.labels.service} waits for ${lock}`).toContainText(
        phrase(holder),
      );
      await expect(row.first().getByRole("link", { name: lock })).toHaveAttribute(
        "href",
        `/locks/${encodeURIComponent(lock)}`,
      );
    }
    await expect(rows.filter({ hasText: phrase(d) }).filter({ hasText: l1 })).toHaveCount(2);
    for (const row of await rows.all())
      await expect(row.locator("td").nth(3)).toHaveText(/^(\d+ ms|\d+(\.\d)? s|\d+ min( \d+ s)?)$/);
    // The chains, too, name holders by service / host / pid, and link each lock.
    const chains = page.getByRole("list", { name: "Wait chains, longest first" });
    await expect(chains.getByRole("link", { name: l2 }).first()).toHaveAttribute(
      "href",
      `/locks/${encodeURIComponent(l2)}`,
    );
    await expect(chains).toContainText(
      `${phrase(c)} waits for ${l2}, held by ${phrase(b)}, which waits for ${l1}, held by ${phrase(a)}`,
    );
    for (const widthPx of [1280, 390]) {
      await page.setViewportSize({ width: widthPx, height: 800 });
      const overflowPx = await page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflowPx, `/contention at ${widthPx} px`).toBeLessThanOrEqual(0);
    }
  } finally {
    await Promise.all(sessions.map((held) => held.close()));
    await masters.deleteWithOwnership(l1, l2, l3, l5);
  }
});
