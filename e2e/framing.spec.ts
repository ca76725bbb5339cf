import { expect, test } from "./support/fixtures";

/** Issue 11, item 6: the console refuses to be framed, and sends the usual security headers everywhere. */

const EXPECTED_HEADERS: Record<string, RegExp> = {
  "content-security-policy": /frame-ancestors 'none'/,
  "x-frame-options": /^DENY$/,
  "x-content-type-options": /^nosniff$/,
  "referrer-policy": /^no-referrer$/,
};

test("pages, API answers, errors and static files all carry the security headers", async ({
  page,
  request,
}) => {
  await page.goto("/");
  const script = await page.locator("script[src]").first().getAttribute("src");
  for (const path of [
    "/",
    "/login",
    "/locks/some-lock",
    "/api/health",
    "/api/locks",
    "/api/no-such-route",
    "/no-such-page",
    script!,
  ]) {
    const response = await request.get(path);
    for (const [name, pattern] of Object.entries(EXPECTED_HEADERS)) {
      expect(response.headers()[name], `${name} on ${path}`).toMatch(pattern);
    }
  }
});

test("another site cannot frame the lock detail (clickjacking of force-release)", async ({
  page,
  stack,
  api,
  resource,
  consoleErrors,
}) => {
  consoleErrors.allow(/frame|Refused to display/i);
  const { lock } = await api.acquire([resource], 30_000);
  const detailUrl = `http://127.0.0.1:${stack.port}/locks/${encodeURIComponent(resource)}`;
  await page.route("http://attacker.test/", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<h1>Win a prize</h1><iframe src="${detailUrl}" width="800" height="600"></iframe>`,
    }),
  );
  await page.goto("http://attacker.test/");
  await expect(page.getByRole("heading", { name: "Win a prize" })).toBeVisible();
  // Give the frame time to load if it were allowed to, then check nothing of the console rendered.
  await page.waitForTimeout(1_000);
  await expect(page.frameLocator("iframe").getByRole("heading", { name: resource })).toHaveCount(0);
  await expect(
    page.frameLocator("iframe").getByRole("button", { name: /Force-release/ }),
  ).toHaveCount(0);
  await api.release([resource], lock.value);
});

test("the app works under its CSP: no violation on any page", async ({ page, resource, api }) => {
  const violations: string[] = [];
  await page.exposeFunction("reportCspViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) =>
      (window as unknown as { reportCspViolation(text: string): void }).reportCspViolation(
        `${location.pathname}: ${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
      ),
    );
  });
  const { lock } = await api.acquire([resource], 30_000);
  // Pages that follow the event stream never go network-idle: they are loaded once their
  // history shows (it arrives by fetch and the stream opens after it).
  const streaming = new Set(["/events", `/locks/${encodeURIComponent(resource)}`]);
  for (const path of [
    "/",
    `/locks/${encodeURIComponent(resource)}`,
    "/events",
    "/latency",
    "/audit",
    "/playground",
    "/login",
  ]) {
    await page.goto(path);
    await expect(page.getByRole("main")).toBeVisible();
    if (streaming.has(path)) {
      await expect(page.getByTestId("history-horizon").first()).toBeVisible();
      await page.waitForTimeout(500);
    } else {
      await page.waitForLoadState("networkidle");
    }
  }
  await expect(page.getByLabel("Admin token")).toBeVisible(); // hydrated: the login form renders client-side
  expect(violations).toEqual([]);
  await api.release([resource], lock.value);
});
