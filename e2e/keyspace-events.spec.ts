/**
 * The node card's keyspace-events action in Chromium (issue 33 part 2): a master without keyspace
 * events (CONSOLE_ENABLE_KEYSPACE_EVENTS is off in the e2e stack) is polled, and its card says so
 * with its freshness and what events would cost it; an anonymous viewer is told to log in; the admin
 * turns events on after a confirmation that shows the exact CONFIG SET, and the card says watching.
 */
import type { Page } from "@playwright/test";
import type { Redis } from "ioredis";
import { LoginPage } from "./pages/login-page";
import { OverviewPage } from "./pages/overview-page";
import { expect, test } from "./support/fixtures";

const NODE = "node-3";

/** Turns node-3's events off and drops the console's subscriber there, so its relist finds them off. */
async function turnEventsOff(node: Redis): Promise<void> {
  await node.config("SET", "notify-keyspace-events", "");
  await node.client("KILL", "TYPE", "pubsub");
}

async function expectPolled(page: Page): Promise<OverviewPage> {
  const overview = new OverviewPage(page);
  await overview.goto();
  const card = overview.nodeCard(NODE);
  await expect(card.getByTestId("node-index-mode")).toHaveText("polling", { timeout: 15_000 });
  await expect(card.getByTestId("node-index-freshness")).toHaveText(/^as of .+ ago$/);
  await expect(card.getByTestId("node-poll-pace")).toContainText("changes seen within ~");
  return overview;
}

test("a polled node's admin turns its keyspace events on from the card, and it is watched again", async ({
  page,
  browser,
  masters,
  stack,
}) => {
  const node = masters.clients[2]!;
  const [, flagsBefore] = (await node.config("GET", "notify-keyspace-events")) as string[];
  try {
    await turnEventsOff(node);

    const anonymous = await browser.newPage();
    try {
      const card = (await expectPolled(anonymous)).nodeCard(NODE);
      await expect(card.getByText(`to turn on keyspace events on ${NODE}`)).toBeVisible();
      await expect(card.getByRole("button", { name: /Turn on keyspace events/ })).toHaveCount(0);
    } finally {
      await anonymous.close();
    }

    await new LoginPage(page).login(stack.adminToken);
    const card = (await expectPolled(page)).nodeCard(NODE);
    // The write rate needs two node reports; the UI asks every 2 s.
    await expect(card.getByText(/^Events would cost node-3: it writes about/)).toBeVisible();
    await card.getByRole("button", { name: `Turn on keyspace events on ${NODE}…` }).click();

    const dialog = page.getByRole("dialog", { name: `Turn on keyspace events on ${NODE}` });
    await expect(dialog.getByLabel("command the console runs", { exact: true })).toHaveText(
      'CONFIG SET notify-keyspace-events "Kg$hzxe"',
    );
    await expect(dialog).toContainText("notifications/s published");
    await dialog.getByRole("button", { name: "Turn on keyspace events" }).click();
    await expect(dialog.getByRole("status")).toContainText(
      `Done: ${NODE}'s notify-keyspace-events is now "Kg$hzxe" (was "")`,
    );
    await expect(card.getByTestId("node-index-mode")).toHaveText("watching", { timeout: 15_000 });
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(dialog).toBeHidden();
    await expect(card.getByTestId("keyspace-events-action")).toHaveCount(0);
  } finally {
    // The other specs expect every node watched with the flags it started with.
    await node.config("SET", "notify-keyspace-events", flagsBefore ?? "");
  }
});
