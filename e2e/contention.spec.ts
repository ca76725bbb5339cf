/**
 * Who blocks whom, in the browser: the Contention page says a chain of three sessions in order and
 * a deadlock cycle with both members, and an admin revokes one member from the cycle; a lock's page
 * says who its holder blocks (transitively) and who blocks its holder. Holders and waiters are
 * written by hand in the library's formats (lock values with a session id, waiter entries with
 * one: docs/holder-sessions.md), as the library writes them.
 */
import { randomBytes } from "node:crypto";
import { LockDetailPage } from "./pages/lock-detail-page";
import { LoginPage } from "./pages/login-page";
import { FakeHolderSession } from "./support/holder-session";
import { expect, test } from "./support/fixtures";
import type { Masters } from "./support/redis";

const ALL_NODES = [0, 1, 2, 3, 4];

/** One live session per service, in order. */
async function sessions(urls: string[], ...services: string[]): Promise<FakeHolderSession[]> {
  return Promise.all(
    services.map(async (service) => {
      const opened = await FakeHolderSession.open(urls, { service, host: "e2e-host" });
      await opened.keepAlive();
      return opened;
    }),
  );
}

/** `holder` holds `resource` (60 s) and `waiter` waits for it (its entry lasts 60 s). */
async function holdAndWait(
  masters: Masters,
  resource: string,
  holder: FakeHolderSession,
  waiter: FakeHolderSession,
): Promise<string> {
  const value = holder.value(60_000);
  await masters.setOn(ALL_NODES, resource, value, 60_000);
  await masters.putWaiter(
    resource,
    {
      id: randomBytes(8).toString("hex"),
      labels: waiter.labels,
      since: Date.now(),
      session: waiter.id,
    },
    Date.now() + 60_000,
  );
  return value;
}

const short = (held: FakeHolderSession) =>
  `${held.labels.service} / e2e-host (session ${held.id.slice(0, 8)})`;

test("the Contention page shows a chain of three sessions in order and a deadlock cycle with both members, and an admin revokes one member", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const [a, b, c, p, q] = (await sessions(
    stack.urls,
    "alpha",
    "beta",
    "gamma",
    "payments",
    "stock",
  )) as [
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
  ];
  const orders = `${resource}:orders`;
  const invoices = `${resource}:invoices`;
  await holdAndWait(masters, orders, a, b);
  await holdAndWait(masters, invoices, b, c);
  const x = `${resource}:x`;
  const y = `${resource}:y`;
  await holdAndWait(masters, x, p, q);
  await holdAndWait(masters, y, q, p);

  await new LoginPage(page).login(stack.adminToken);
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Contention" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Contention" })).toBeVisible();
  const chains = page.getByRole("list", { name: "Wait chains, longest first" });
  await expect(chains).toContainText(
    `${short(c)} waits for ${invoices}, held by ${short(b)}, which waits for ${orders}, held by ${short(a)}, which waits for nothing: the root blocker.`,
  );
  const cycle = page.getByRole("region", { name: "Deadlock cycle of 2 sessions" });
  await expect(cycle).toContainText(
    `${short(p)} holds ${x} and waits for ${y}, held by ${short(q)}.`,
  );
  await expect(cycle).toContainText(
    `${short(q)} holds ${y} and waits for ${x}, held by ${short(p)}.`,
  );

  await cycle.getByRole("button", { name: `Revoke ${short(q)}: ask it to release ${y}` }).click();
  await expect(cycle.getByRole("status")).toContainText(
    `Asked session ${q.id.slice(0, 8)} to release ${y}`,
  );

  await Promise.all([a, b, c, p, q].map((held) => held.close()));
  await masters.deleteWithOwnership(orders, invoices, x, y);
});

test("a lock's page says whom its holder blocks, transitively, and who blocks its holder", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  const [a, b, c] = (await sessions(stack.urls, "alpha", "beta", "gamma")) as [
    FakeHolderSession,
    FakeHolderSession,
    FakeHolderSession,
  ];
  const orders = `${resource}:orders`;
  const invoices = `${resource}:invoices`;
  await holdAndWait(masters, orders, a, b);
  await holdAndWait(masters, invoices, b, c);

  const detail = new LockDetailPage(page);
  await detail.goto(invoices);
  const chain = page.getByRole("region", { name: "Wait chain" });
  await expect(chain).toContainText(`Held by ${short(b)}, which is itself blocked by ${short(a)}.`);
  await expect(chain).toContainText(`It blocks 1 session (transitively): ${short(c)}.`);
  await detail.goto(orders);
  await expect(chain).toContainText(`Held by ${short(a)}, which waits for nothing.`);
  await expect(chain).toContainText(
    `It blocks 2 sessions (transitively): ${short(b)}, then ${short(c)}.`,
  );

  await Promise.all([a, b, c].map((held) => held.close()));
  await masters.deleteWithOwnership(orders, invoices);
});
