import { expect, type Locator, type Page } from "@playwright/test";

export class LockDetailPage {
  readonly dialog: Locator;

  constructor(private readonly page: Page) {
    this.dialog = page.getByRole("dialog", { name: /Force-release/ });
  }

  async goto(resource: string): Promise<void> {
    await this.page.goto(`/locks/${encodeURIComponent(resource)}`);
    await expect(
      this.page.getByRole("heading", { level: 1, name: resource, exact: true }),
    ).toBeVisible();
  }

  get forceReleaseButton(): Locator {
    return this.page.getByRole("button", { name: "Force-release…" });
  }

  get summary(): Locator {
    return this.page.getByRole("region", { name: "Summary" });
  }

  get perNodeTable(): Locator {
    return this.page.getByRole("table", { name: "Per-node holders" });
  }

  async openForceRelease(): Promise<void> {
    await this.forceReleaseButton.click();
    await expect(this.dialog).toBeVisible();
  }

  async confirmForceRelease(reason: string): Promise<void> {
    await this.dialog.getByLabel(/Reason/).fill(reason);
    await this.dialog.getByRole("button", { name: "Force-release" }).click();
  }

  /** Opens the dialog, checks that every one of `nodeCount` nodes will be deleted, confirms, waits for the result. */
  async forceReleaseEverywhere(reason: string, nodeCount: number): Promise<void> {
    await this.openForceRelease();
    const plan = this.dialog.getByRole("table", { name: "What will be deleted" });
    await expect(plan.getByText("will be deleted")).toHaveCount(nodeCount);
    await this.confirmForceRelease(reason);
    await expect(this.dialog.getByRole("status")).toContainText(
      `deleted on ${nodeCount} of ${nodeCount} nodes`,
    );
  }
}
