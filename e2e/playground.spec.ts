import { LoginPage } from "./pages/login-page";
import { PlaygroundPage } from "./pages/playground-page";
import { expect, test } from "./support/fixtures";

test("playground acquires with a fencing token, extends and releases, showing every node's vote", async ({
  page,
  masters,
  stack,
  resource,
}) => {
  await new LoginPage(page).login(stack.adminToken, "/playground");
  const playground = new PlaygroundPage(page);
  await playground.goto();

  await playground.acquire([resource], 5_000, true);
  await expect(playground.lastOperation.getByRole("status")).toContainText(
    /Acquired for 5000 ms, fencing token \d+/,
  );
  await expect(playground.votes.getByText("for", { exact: true })).toHaveCount(5);
  await expect(playground.heldLock.getByText(/^\d+$/)).toBeVisible(); // the fencing token
  const [value] = await masters.valuesOf(resource);
  // The console locks with owner labels: the 2.x value carries them (rl1:<token>:<json>).
  expect(value).toMatch(/^rl1:[0-9a-f]{40}:\{"acquiredAt":\d+,"ttlMs":5000,"labels":\{/);
  const afterAcquireMs = await playground.remainingMs();
  expect(afterAcquireMs).toBeLessThanOrEqual(5_000);

  await playground.extend(20_000);
  await expect(playground.lastOperation.getByRole("status")).toContainText("Extended for 20000 ms");
  await expect.poll(() => playground.remainingMs()).toBeGreaterThan(15_000);
  expect(await masters.valuesOf(resource)).toEqual(Array(5).fill(value));

  await playground.release();
  await expect(playground.lastOperation.getByRole("status")).toContainText("deleted on 5 nodes");
  await expect(playground.heldLock).toBeHidden();
  expect(await masters.valuesOf(resource)).toEqual([null, null, null, null, null]);
});

test("acquiring a resource someone else holds explains the refusal and shows the votes against", async ({
  page,
  api,
  stack,
  resource,
  consoleErrors,
}) => {
  consoleErrors.allow(/status of 409/);
  const { lock } = await api.acquire([resource], 30_000);
  await new LoginPage(page).login(stack.adminToken, "/playground");
  const playground = new PlaygroundPage(page);
  await playground.goto();

  await playground.acquire([resource], 5_000);
  const alert = playground.lastOperation.getByRole("alert");
  await expect(alert).toContainText("Another holder owns at least one of these resources");
  await expect(playground.heldLock).toBeHidden();
  await api.release([resource], lock.value);
});
