/**
 * The test fixture every spec uses: the stack (masters + console), direct Redis access, the API
 * as a script, a fresh resource name per test, and a check that the page logged no console error.
 */
import { test as base, expect, type APIRequestContext, type Page } from "@playwright/test";
import { E2E_PORT, readStack, type Stack } from "../stack-file";
import { ConsoleApi } from "./api";
import { Masters } from "./redis";

interface ConsoleErrors {
  /** Declares an error this test provokes on purpose (e.g. the 409 of a refused acquire). */
  allow(pattern: RegExp): void;
}

interface Fixtures {
  request: APIRequestContext;
  stack: Stack;
  masters: Masters;
  api: ConsoleApi;
  /** A resource name no other test uses. */
  resource: string;
  consoleErrors: ConsoleErrors;
}

function watchConsole(page: Page, errors: string[]): void {
  page.on("console", (message) => {
    if (message.type() === "error")
      errors.push(`console.error: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
}

export const test = base.extend<Fixtures>({
  // The worker's own stack (e2e/stack-file.ts: this module is evaluated in each worker); a spec's
  // test.use({ baseURL }) still wins.
  baseURL: `http://127.0.0.1:${E2E_PORT}`,
  // Playwright's request context keeps idle sockets with no timeout of its own (Node's agent ignores
  // the server's Keep-Alive hint when the agent has none), while `next start` closes an idle socket
  // after 6 s (Node's 5 s keepAliveTimeout plus its 1 s buffer). A request written while the socket
  // closes is reset: CI saw ECONNRESET when a test's second API call came about 6 s after its first,
  // and a two-process reproduction at that boundary resets 46 of 60 requests, none with
  // `connection: close`. One connection per request removes the race; browsers retry a request
  // reset on a reused socket themselves.
  request: async ({ playwright, baseURL }, use) => {
    const request = await playwright.request.newContext({
      baseURL,
      extraHTTPHeaders: { connection: "close" },
    });
    await use(request);
    await request.dispose();
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies destructured
  stack: async ({}, use) => use(readStack()),
  masters: async ({ stack }, use) => {
    const masters = new Masters(stack);
    await use(masters);
    await masters.close();
  },
  api: async ({ request, stack }, use) => use(new ConsoleApi(request, stack)),
  // eslint-disable-next-line no-empty-pattern -- see above
  resource: async ({}, use, testInfo) => {
    const slug = testInfo.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .slice(0, 40);
    await use(`e2e:${slug}:${Date.now().toString(36)}`);
  },
  consoleErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      const allowed: RegExp[] = [];
      watchConsole(page, errors);
      await use({ allow: (pattern) => allowed.push(pattern) });
      const unexpected = errors.filter((error) => !allowed.some((pattern) => pattern.test(error)));
      expect(unexpected, "the page logged console errors").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
