import { AuditPage } from "./pages/audit-page";
import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { expect, test } from "./support/fixtures";

const INCIDENT = "https://incidents.example.com/INC-77";

test("a force-release with an incident link: the audit entry says break-glass, links the incident, and has a link of its own", async ({
  page,
  api,
  stack,
  resource,
}) => {
  await api.acquire([resource], 60_000);
  await new LoginPage(page).login(stack.adminToken);
  const detail = new LockDetailPage(page);
  await detail.goto(resource);
  await detail.openForceRelease();
  await detail.dialog.getByLabel(/^Incident link/).fill(INCIDENT);
  const reason = `incident drill ${resource}`;
  await detail.confirmForceRelease(reason, "release-now");
  await expect(detail.dialog.getByRole("status")).toContainText("deleted on 5 of 5 nodes");
  await detail.dialog.getByRole("button", { name: "Close" }).click();

  // Filtered by resource in the URL: a filtered trail is a link.
  await page.goto(`/audit?resource=${encodeURIComponent(resource)}`);
  const audit = new AuditPage(page);
  const entry = audit.entryWithReason(reason);
  await expect(entry).toContainText(/break-glass \(sign-in [^)]+\)/);
  await expect(entry).toContainText("break-glass · admin by break-glass (CONSOLE_ADMIN_TOKEN)");
  await expect(entry.getByRole("link", { name: "incident" })).toHaveAttribute("href", INCIDENT);

  await entry.getByRole("link", { name: "link to this entry" }).click();
  await expect(page).toHaveURL(/\/audit\?id=[0-9a-f-]+$/);
  await expect(page.getByRole("heading", { name: "Audit entry" })).toBeVisible();
  await expect(audit.table.getByRole("row")).toHaveCount(2); // the header and the one entry
  await expect(audit.entryWithReason(reason)).toBeVisible();
  await page.getByRole("button", { name: "Show the whole trail" }).click();
  await expect(page.getByRole("heading", { name: "Audit trail" })).toBeVisible();
});

test("the Tokens page tells the break-glass admin that a token needs a person", async ({
  page,
  stack,
}) => {
  await new LoginPage(page).login(stack.adminToken);
  await page.goto("/tokens");
  await expect(page.getByRole("heading", { name: "Personal tokens" })).toBeVisible();
  await expect(page.getByText("which is nobody in particular")).toBeVisible();
  await expect(page.getByRole("form", { name: "Create a token" })).toHaveCount(0);
  await expect(page.getByText(/No live tokens|Loading tokens/)).toBeVisible();
});
