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
  await expect(dialog.forceButton).toHaveCount(0); // asking comes first
  await expect(dialog.deadline).toHaveValue("30");
  await expect(dialog.plan.getByText("will be replaced by a tombstone")).toHaveCount(5);

  await dialog.askToRelease(`report stuck ${resource}`, 1.5);
  await expect(dialog.askProgress).toContainText("Time left before the deadline");
  await expect(dialog.status).toContainText("Waiting for the holder to let go");
  // The fake holder ignores the request, as a wedged one would.
  await expect(dialog.status).toContainText("The holder has not let go by the deadline", {
    timeout: 5_000,
  });
  await expect(dialog.askProgress).toContainText(
    "nobody else gets it before the holder has stopped, at most until its current validity ends",
  );
  await dialog.forceButton.click();
  await expect(dialog.status).toContainText("tombstoned on 5 of 5 nodes");
  for (const value of await masters.valuesOf(resource)) expect(value).toMatch(/^rlx:/);
  await dialog.close();

  const overview = new OverviewPage(page);
  await overview.goto();
  await expect(overview.row(resource)).toContainText("being released");
  await masters.deleteEverywhere(resource);
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
  await expect(detail.forceReleaseDialog.askButton).toBeVisible();
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

test("the holder sessions page lists the session; releasing everything it holds previews its lock, then says each outcome", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const { holder } = await liveHolderOf(stack, masters, resource);
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
  await expect(planned).toContainText("replaced by a tombstone");
  expect(await masters.valuesOf(resource)).not.toContain(null); // a preview changes nothing

  const result = await sessions.releaseEverything(`worker wedged ${resource}`);
  await expect(result.getByRole("row").filter({ hasText: resource })).toContainText(
    "tombstoned on 5 of 5 nodes",
  );
  await masters.deleteEverywhere(resource);
  await holder.close();
});
