/**
 * Safe on-call unlock in the browser (issue 31): the force-release dialog says whether the holder
 * is alive, asks it to release first with a deadline counting down, offers Force release (a
 * tombstone) past it; a holder without a session needs an explicit choice; the holder sessions view
 * lists the session and previews releasing everything it holds. The holder's session is written by
 * hand per docs/holder-sessions.md (e2e/support/holder-session.ts).
 */
import { randomBytes } from "node:crypto";
import { HolderSessionsPage } from "./pages/holder-sessions-page";
import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { OverviewPage } from "./pages/overview-page";
import { FakeHolderSession } from "./support/holder-session";
import { expect, test } from "./support/fixtures";
import type { Masters } from "./support/redis";
import type { Stack } from "./stack-file";

const LABELS = { service: "report-worker", host: "e2e-host", pid: "4242" };
const HEADLINE = "report-worker / e2e-host / 4242";
const ALL_NODES = [0, 1, 2, 3, 4];

/** A live holder (heartbeat every second) holding `resource` on every node for 60 s. */
async function liveHolderOf(stack: Stack, masters: Masters, resource: string) {
  const holder = await FakeHolderSession.open(stack.urls, LABELS);
  await holder.keepAlive();
  const value = holder.value(60_000);
  await masters.setOn(ALL_NODES, resource, value, 60_000);
  return { holder, value };
}

test("the dialog says the holder is alive, asks it to release with a countdown, then offers Force release, which tombstones", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const { holder } = await liveHolderOf(stack, masters, resource);
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  await expect(detail.summary).toContainText(/alive, last heartbeat \d+\.\d s ago/);
  await expect(
    detail.summary.getByRole("link", { name: `Holder session ${holder.id}` }),
  ).toBeVisible();
  await expect(detail.summary).toContainText("service=report-worker");

  await detail.openForceRelease();
  const dialog = detail.forceReleaseDialog;
  await expect(dialog.holder).toContainText(/holder alive, last heartbeat \d+\.\d s ago/);
  // Issue 39 item 6: titled by its action; asking and forcing are two visible actions (issue 31
  // hid Force release until the deadline had passed).
  await expect(dialog.title).toHaveText(`Ask the holder to release ${resource}`);
  await expect(dialog.askButton).toBeVisible();
  await expect(dialog.forceButton).toBeVisible();
  await expect(dialog.holder).toContainText("it can answer");
  await expect(dialog.deadline).toHaveValue("30");
  await expect(dialog.plan.getByText("will be replaced by a tombstone")).toHaveCount(5);
  // The number that matters, before the click, from the rule: the row's validity (what is left
  // of the value's 60 s TTL when the page read it) plus the library's drift (0.6 s).
  await expect(dialog.whatForcingDoes).toContainText(
    /nobody else gets it for at most \d+\.\d s .*if it has not stopped by then, two processes may act as holders/,
  );
  const words = (await dialog.whatForcingDoes.textContent()) ?? "";
  const atMostS = Number(/at most (\d+\.\d) s/.exec(words)?.[1]);
  expect(atMostS).toBeLessThanOrEqual(60.7);
  expect(atMostS).toBeGreaterThan(30);
  // The explicit delete-now is its own control, never the default.
  await expect(dialog.deleteNowButton).toBeVisible();

  await dialog.askToRelease(`report stuck ${resource}`, 1.5);
  await expect(dialog.askProgress).toContainText("Time left before the deadline");
  await expect(dialog.status).toContainText("Waiting for the holder to let go");
  // The fake holder ignores the request, as a wedged one would.
  // The 1.5 s deadline's countdown runs out: a generous wait, the order is what counts.
  await expect(dialog.status).toContainText("The holder has not let go by the deadline", {
    timeout: 20_000,
  });
  await expect(dialog.askProgress).toContainText(
    "nobody else gets it before the holder has stopped, at most until its current validity ends",
  );
  await dialog.forceButton.click();
  await expect(dialog.status).toContainText(
    /tombstoned on 5 of 5 nodes: nobody else gets it before its holder has stopped, at most until \d\d:\d\d:\d\d/,
  );
  for (const value of await masters.valuesOf(resource)) expect(value).toMatch(/^rlx:/);
  await dialog.close();

  // The releasing row keeps its holder's name, from the session its tombstone names.
  const overview = new OverviewPage(page);
  await overview.goto();
  await expect(overview.row(resource)).toContainText("being released");
  await expect(overview.row(resource)).toContainText(
    `held by a holder being released: ${HEADLINE}`,
  );
  await detail.goto(resource);
  await expect(detail.summary).toContainText(`held by a holder being released: ${HEADLINE}`);

  // A second force-release never lengthens the reservation: it says until when, and offers the
  // explicit delete-now, which lifts it.
  await detail.openForceRelease();
  await expect(dialog.title).toHaveText(`Force release ${resource}`);
  await expect(dialog.askButton).toHaveCount(0);
  await expect(dialog.root.getByLabel("Who loses the lock")).toContainText(HEADLINE);
  await dialog.forceRelease(`again ${resource}`);
  await expect(dialog.status).toContainText(/already reserved until \d\d:\d\d:\d\d/);
  for (const value of await masters.valuesOf(resource)) expect(value).toMatch(/^rlx:/);
  await dialog.deleteNowButton.click();
  await expect(dialog.status).toContainText("deleted on 5 of 5 nodes");
  expect(await masters.valuesOf(resource)).toEqual([null, null, null, null, null]);
  await dialog.close();
  await holder.close();
});

test("an asked holder that lets go is reported as released by the holder after N ms", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const { holder, value } = await liveHolderOf(stack, masters, resource);
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  await detail.openForceRelease();
  const dialog = detail.forceReleaseDialog;
  await dialog.askToRelease(`deploy ${resource}`, 30);
  await expect(dialog.askProgress).toContainText("Time left before the deadline");

  await holder.releaseAsAsked(resource, value);
  await expect(dialog.status).toContainText(/Released by the holder after \d+ ms/);
  await expect(dialog.forceButton).toHaveCount(0);
  expect(await masters.valuesOf(resource)).toEqual([null, null, null, null, null]);
  await dialog.close();
  await holder.close();
});

test("an unresponsive holder is said so in words, in its row of the locks table and on the lock page, with what forcing would do", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const holder = await FakeHolderSession.open(stack.urls, LABELS);
  await holder.heartbeat(12_000); // its last heartbeat 12 s ago, its connections still open
  await masters.setOn(ALL_NODES, resource, holder.value(60_000), 60_000);
  await new LoginPage(page).login(stack.adminToken);
  // The locks table says it in the row, and the badge leads to the lock page where the fix is.
  const overview = new OverviewPage(page);
  await overview.goto();
  const alert = overview.row(resource).getByRole("link", { name: /holder unresponsive 1\d s/ });
  await expect(alert).toBeVisible();
  await alert.click();
  const detail = new LockDetailPage(page);
  await expect(detail.summary).toContainText(
    /unresponsive for 1\d s \(paused, GC or a blocked event loop\)/,
  );
  await expect(detail.summary).toContainText(/1\d s ago/);
  await detail.openForceRelease();
  await expect(detail.forceReleaseDialog.holder).toContainText(
    /holder unresponsive for 1\d s \(paused, GC or a blocked event loop\): forcing may let two processes act at once/,
  );
  // A paused holder cannot answer: the dialog is the forcing one, and says asking helps only if
  // it resumes; both actions stay visible.
  const dialog = detail.forceReleaseDialog;
  await expect(dialog.title).toHaveText(`Force release ${resource}`);
  await expect(dialog.askButton).toBeVisible();
  await expect(dialog.forceButton).toBeVisible();
  await expect(dialog.holder).toContainText("it cannot answer while paused");
  await expect(dialog.whatForcingDoes).toContainText(/nobody else gets it for at most \d+\.\d s/);
  await page.keyboard.press("Escape");
  await masters.deleteEverywhere(resource);
  await holder.close();
});

test("a holder without a session needs a choice: nothing is preselected and force stays disabled until one is made", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  // Another library's lock: a plain random value, no session id.
  await masters.setOn(ALL_NODES, resource, randomBytes(20).toString("hex"), 60_000);
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  await expect(detail.summary).toContainText("no session (another library or session: false)");
  await detail.openForceRelease();
  const dialog = detail.forceReleaseDialog;
  await expect(dialog.holder).toContainText(
    "holder has no session (another library or session: false)",
  );
  await expect(dialog.askButton).toHaveCount(0);
  await expect(dialog.noSessionChoice("release-now")).not.toBeChecked();
  await expect(dialog.noSessionChoice("hold-until-ttl")).not.toBeChecked();
  await dialog.reason.fill("other library, wedged");
  await expect(dialog.forceButton).toBeDisabled();

  await dialog.noSessionChoice("hold-until-ttl").check();
  await expect(dialog.plan.getByText("will be replaced by a tombstone")).toHaveCount(5);
  await dialog.noSessionChoice("release-now").check();
  await expect(dialog.plan.getByText("will be deleted")).toHaveCount(5);
  await expect(dialog.forceButton).toBeEnabled();
  await dialog.forceButton.click();
  await expect(dialog.status).toContainText("deleted on 5 of 5 nodes");
  expect(await masters.valuesOf(resource)).toEqual([null, null, null, null, null]);
});

test("a lock held until its TTL by a tombstone without a session says its holder's name is unknown, in words, on its row", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  await masters.setOn(ALL_NODES, resource, randomBytes(20).toString("hex"), 60_000);
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  await detail.openForceRelease();
  const dialog = detail.forceReleaseDialog;
  await expect(dialog.title).toHaveText(`Force release ${resource}`);
  await dialog.forceRelease("other library, hold it until its TTL", "hold-until-ttl");
  await expect(dialog.status).toContainText("tombstoned on 5 of 5 nodes");
  await dialog.close();

  const overview = new OverviewPage(page);
  await overview.goto();
  await expect(overview.row(resource)).toContainText("being released");
  await expect(overview.row(resource)).toContainText(
    "held by a holder being released (name unknown)",
  );
  await masters.deleteEverywhere(resource);
});

test("the holder sessions page lists the session; releasing everything asks first, with the locks' count typed, then forces what it still holds", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const { holder, value } = await liveHolderOf(stack, masters, resource);
  // Not an extension of `resource`'s name: text filters match substrings.
  const second = resource.replace(":", ":second-");
  await masters.setOn(ALL_NODES, second, holder.value(60_000), 60_000);
  await new LoginPage(page).login(stack.adminToken);
  const sessions = new HolderSessionsPage(page);
  await sessions.open();
  const row = sessions.row(holder.id);
  await expect(row).toContainText(HEADLINE);
  await expect(row).toContainText(/alive, last heartbeat \d+\.\d s ago/);

  await sessions.openSession(holder.id, HEADLINE);
  await expect(sessions.summary).toContainText("alive");
  await expect(sessions.locksHeld.getByRole("link", { name: resource })).toBeVisible();

  const preview = await sessions.preview();
  const planned = preview.getByRole("row").filter({ hasText: resource });
  await expect(planned).toContainText("asked to release by the deadline");
  await expect(planned).toContainText("replaced by a tombstone");
  expect(await masters.valuesOf(resource)).not.toContain(null); // a preview changes nothing

  // Two locks: both actions wait for their count typed.
  await sessions.fillRelease(`worker wedged ${resource}`, { deadlineS: "1", count: 1 });
  await expect(sessions.askButton).toBeDisabled();
  await expect(sessions.forceAnywayButton).toBeDisabled();
  await sessions.fillRelease(`worker wedged ${resource}`, { deadlineS: "1", count: 2 });
  await expect(sessions.forceAnywayButton).toBeEnabled();
  const asked = await sessions.askToRelease();
  await expect(asked.getByRole("row").filter({ hasText: second })).toContainText(
    "asked to release (marked on 5 of 5 nodes)",
  );
  expect(await masters.valuesOf(resource)).toEqual(ALL_NODES.map(() => value)); // asked, not taken

  // This holder never answers: past the deadline, force what it still holds.
  const result = await sessions.forceWhatItStillHolds();
  for (const name of [resource, second])
    await expect(result.getByRole("row").filter({ hasText: name })).toContainText(
      "tombstoned on 5 of 5 nodes",
    );
  await masters.deleteEverywhere(resource);
  await masters.deleteEverywhere(second);
  await holder.close();
});
