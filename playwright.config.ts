import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { E2E_STACKS, portOfStack } from "./e2e/stack-file";

// Debian's chromium when installed (CI installs it with apt), otherwise Playwright's own download.
const systemChromium = "/usr/bin/chromium";
const launchOptions = existsSync(systemChromium)
  ? {
      executablePath: systemChromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    }
  : {};

const urlOfStack = (index: number) => `http://127.0.0.1:${portOfStack(index)}`;

/**
 * Specs that need the machine to themselves: one burns a core to make the host busy (beside it,
 * the other worker's pages lagged 9.4 s where 1 s is the bound), the others time what the page
 * shows against the clock. They run after every other spec, one at a time, while the other stack
 * sits idle. Everything else runs a worker per stack.
 */
const ALONE_SPECS = ["**/overview-server-state.spec.ts", "**/overview.spec.ts"];

const desktop = {
  ...devices["Desktop Chrome"],
  viewport: { width: 1280, height: 800 },
  launchOptions,
};

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results",
  // One worker per stack (e2e/stack-file.ts): specs pause and restart masters, so each worker has
  // masters and a console of its own; within a worker, one spec at a time.
  workers: E2E_STACKS,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    // No baseURL here: e2e/support/fixtures.ts gives each worker its own stack's.
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions,
  },
  projects: [
    { name: "desktop", testIgnore: ALONE_SPECS, use: desktop },
    {
      // Only the layout checks run on a phone-sized viewport; the flows run once, on desktop.
      name: "phone",
      testMatch: "**/layout.spec.ts",
      use: { ...devices["Pixel 7"], launchOptions },
    },
    {
      name: "desktop (alone)",
      testMatch: ALONE_SPECS,
      dependencies: ["desktop", "phone"],
      workers: 1,
      use: desktop,
    },
  ],
  // Five real redis-server masters plus `next start` per stack (building first only when sources
  // changed; the stacks start one after another, so only the first builds).
  webServer: Array.from({ length: E2E_STACKS }, (_, index) => ({
    command: `npx tsx e2e/stack.ts`,
    env: { E2E_STACK_INDEX: String(index) },
    url: `${urlOfStack(index)}/api/health`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: "pipe" as const,
    stderr: "pipe" as const,
    gracefulShutdown: { signal: "SIGTERM" as const, timeout: 10_000 },
  })),
});
