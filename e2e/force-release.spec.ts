import { AuditPage } from "./pages/audit-page";
import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { expect, test } from "./support/fixtures";

test("force-release with confirmation removes the lock on every node and writes an audit entry", async ({
  page,
  api,
  masters,
  stack,
  resource,
}) => {
  const { lock } = await api.acquire([resource], 60_000);
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);

  await detail.openForceRelease();
  const dialog = detail.forceReleaseDialog;
  // The console's own locks carry no holder session: the operator chooses, nothing preselected.
  await expect(dialog.holder).toContainText("holder has no session");
  await expect(dialog.noSessionChoice("release-now")).not.toBeChecked();
  await expect(dialog.noSessionChoice("hold-until-ttl")).not.toBeChecked();
  await dialog.noSessionChoice("release-now").check();
  await expect(dialog.plan.getByText("will be deleted")).toHaveCount(5);
  await expect(dialog.forceButton).toBeDisabled(); // a reason is required

  const reason = `stuck worker ${resource}`;
  await detail.confirmForceRelease(reason, "release-now");
  await expect(detail.dialog.getByRole("status")).toContainText("deleted on 5 of 5 nodes");
  await expect(detail.dialog.getByLabel("Audit entry")).toContainText(reason);
  await detail.dialog.getByRole("button", { name: "Close" }).click();
  await expect(detail.dialog).toBeHidden();
  await expect(page.getByText("No node holds this resource now")).toBeVisible();
  expect(await masters.valuesOf(resource)).toEqual([null, null, null, null, null]);

  const audit = new AuditPage(page);
  await audit.goto();
  const entry = audit.entryWithReason(reason);
  await expect(entry).toContainText("force-release");
  await expect(entry).toContainText("success");
  await expect(entry).toContainText(lock.value.slice(0, 8));
});

test("force-release refuses and explains when the lock changed after the dialog opened", async ({
  page,
  api,
  masters,
  stack,
  resource,
  consoleErrors,
}) => {
  consoleErrors.allow(/status of 409/);
  await api.acquire([resource], 60_000);
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  await detail.openForceRelease();

  // Another holder takes over between the operator's look and the confirmation.
  const newValue = "f".repeat(40);
  await masters.setOn([0, 1, 2, 3, 4], resource, newValue, 60_000);
  await detail.confirmForceRelease("compare-and-delete check", "release-now");

  // Issue 39: a force-release tombstones by default, so a refusal says nothing was written at all.
  await expect(detail.dialog.getByRole("alert")).toContainText("Nothing was written");
  await expect(detail.dialog.getByRole("alert")).toContainText("changed since you looked at it");
  await expect(
    detail.dialog.getByRole("table", { name: "Values found on the nodes" }),
  ).toBeVisible();
  expect(await masters.valuesOf(resource)).toEqual(Array(5).fill(newValue));
  await masters.deleteEverywhere(resource);
});

test("the dialog closes with Escape without deleting anything", async ({
  page,
  api,
  masters,
  stack,
  resource,
}) => {
  const { lock } = await api.acquire([resource], 60_000);
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  await detail.openForceRelease();
  await expect(detail.dialog.getByLabel(/Reason/)).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(detail.dialog).toBeHidden();
  expect(await masters.valuesOf(resource)).toEqual(Array(5).fill(lock.value));
  await api.release([resource], lock.value);
});
