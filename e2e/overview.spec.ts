import { OverviewPage } from "./pages/overview-page";
import { digestOf } from "./support/digest";
import { expect, test } from "./support/fixtures";

test("a lock acquired through the API appears held on 5 of 5 nodes with a countdown that only decreases", async ({
  page,
  api,
  resource,
}) => {
  const { lock } = await api.acquire([resource], 30_000);
  const overview = new OverviewPage(page);
  await overview.goto();

  const row = overview.row(resource);
  await expect(row.getByText("held", { exact: true })).toBeVisible();
  await expect(row.getByText("5/5")).toBeVisible();
  // Anonymous: the value's digest, never the value itself (issue 32).
  await expect(row.getByText(digestOf(lock.value))).toBeVisible();
  await expect(row.getByText(lock.value.slice(0, 8))).toHaveCount(0);

  // Sample across at least one poll (every 2 s): the countdown must never jump back up, and it
  // must fall as fast as wall time does: within half the time watched (a frozen countdown, or one
  // that runs twice as fast, is off by all of it; a slow sample by a round trip).
  const samples: number[] = [];
  const sampledAtMs: number[] = [];
  for (let index = 0; index < 16; index += 1) {
    samples.push(await overview.remainingMs(resource));
    sampledAtMs.push(Date.now());
    await page.waitForTimeout(200);
  }
  for (let index = 1; index < samples.length; index += 1)
    expect(samples[index]).toBeLessThanOrEqual(samples[index - 1]!);
  const droppedMs = samples[0]! - samples.at(-1)!;
  const elapsedMs = sampledAtMs.at(-1)! - sampledAtMs[0]!;
  expect(elapsedMs).toBeGreaterThan(3_000);
  expect(Math.abs(droppedMs - elapsedMs)).toBeLessThan(elapsedMs / 2);
  expect(samples[0]).toBeLessThanOrEqual(30_000);
  expect(samples[0]).toBeGreaterThan(20_000);
});

test("a lock written to only 2 of 5 nodes shows as partial with no majority", async ({
  page,
  masters,
  resource,
}) => {
  await masters.setOn([0, 1], resource, "0123456789abcdef0123456789abcdef01234567", 60_000);
  const overview = new OverviewPage(page);
  await overview.goto();

  const row = overview.row(resource);
  await expect(row.getByText("partial", { exact: true })).toBeVisible();
  await expect(row.getByText("2/5")).toBeVisible();
  await expect(row.getByText("no majority")).toBeVisible();
  await expect(
    row.getByRole("img", {
      name: /node-1: holds the value, node-2: holds the value, node-3: no key/,
    }),
  ).toBeVisible();
  await masters.deleteEverywhere(resource);
});

test("different values on different nodes show as conflict", async ({
  page,
  masters,
  resource,
}) => {
  await masters.setOn([0, 1, 2], resource, "a".repeat(40), 60_000);
  await masters.setOn([3, 4], resource, "b".repeat(40), 60_000);
  const overview = new OverviewPage(page);
  await overview.goto();
  await expect(overview.row(resource).getByText("conflict", { exact: true })).toBeVisible();
  await expect(overview.row(resource).getByText("3/5")).toBeVisible();
  await masters.deleteEverywhere(resource);
});

test("filters and sort live in the URL, and a deep link restores them", async ({
  page,
  api,
  masters,
  resource,
}) => {
  await api.acquire([`${resource}:held`], 30_000);
  await masters.setOn([0], `${resource}:partial`, "c".repeat(40), 30_000);
  const overview = new OverviewPage(page);
  await overview.goto();

  await overview.filterByPattern(`${resource}:*`);
  await expect(page).toHaveURL(/match=/);
  await expect(overview.table.getByRole("row")).toHaveCount(3); // header + 2 rows
  await overview.filterByState("partial");
  await expect(page).toHaveURL(/state=partial/);
  await expect(overview.row(`${resource}:partial`)).toBeVisible();
  await expect(overview.row(`${resource}:held`)).toHaveCount(0);

  await page.reload();
  await expect(page.getByLabel("Resource pattern")).toHaveValue(`${resource}:*`);
  await expect(page.getByLabel("State")).toHaveValue("partial");
  await expect(overview.row(`${resource}:partial`)).toBeVisible();
  await expect(overview.row(`${resource}:held`)).toHaveCount(0);
  await masters.deleteEverywhere(`${resource}:partial`, `${resource}:held`);
});

test("sorting is keyboard operable and reflected in aria-sort and the URL", async ({
  page,
  api,
  resource,
}) => {
  await api.acquire([`${resource}:short`], 5_000);
  await api.acquire([`${resource}:long`], 60_000);
  const overview = new OverviewPage(page);
  await overview.goto(`?match=${encodeURIComponent(`${resource}:*`)}`);
  await expect(overview.table.getByRole("row")).toHaveCount(3);

  await overview.sortButton("Validity").focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/sort=validity/);
  await expect(overview.table.getByRole("columnheader", { name: "Validity" })).toHaveAttribute(
    "aria-sort",
    "ascending",
  );
  const rows = overview.table.getByRole("row");
  await expect(rows.nth(1)).toContainText(`${resource}:short`);
  await page.keyboard.press("Enter");
  await expect(overview.table.getByRole("columnheader", { name: "Validity" })).toHaveAttribute(
    "aria-sort",
    "descending",
  );
  await expect(rows.nth(1)).toContainText(`${resource}:long`);
});

test("polling pauses while the tab is hidden and resumes when it is visible again", async ({
  page,
}) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  const setVisibility = (state: "hidden" | "visible") =>
    page.evaluate((visibility) => {
      Object.defineProperty(document, "visibilityState", {
        configurable: true,
        get: () => visibility,
      });
      document.dispatchEvent(new Event("visibilitychange", { bubbles: true }));
    }, state);
  let pollRequests = 0;
  page.on("request", (request) => {
    if (/\/api\/(locks|nodes)\b/.test(request.url())) pollRequests += 1;
  });

  await setVisibility("hidden");
  pollRequests = 0;
  await page.waitForTimeout(5_000); // longer than both polling intervals (2 s)
  expect(pollRequests).toBe(0);

  await setVisibility("visible");
  await expect.poll(() => pollRequests, { timeout: 20_000 }).toBeGreaterThan(0);
});
