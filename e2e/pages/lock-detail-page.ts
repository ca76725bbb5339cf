import { expect, type Locator, type Page } from "@playwright/test";
import { ForceReleaseDialog, type NoSessionChoice } from "./force-release-dialog";

export class LockDetailPage {
  readonly dialog: Locator;
  readonly forceReleaseDialog: ForceReleaseDialog;

  constructor(private readonly page: Page) {
    this.forceReleaseDialog = new ForceReleaseDialog(page);
    this.dialog = this.forceReleaseDialog.root;
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

  /** Fills the reason and forces; `noSession`: the choice for a holder without a session. */
  async confirmForceRelease(reason: string, noSession?: NoSessionChoice): Promise<void> {
    await this.forceReleaseDialog.forceRelease(reason, noSession);
  }

  /**
   * Opens the dialog for a lock whose holder has no session (the console's own, another
   * library's), checks that every one of `nodeCount` nodes will be deleted once "release now" is
   * chosen, confirms, waits for the result.
   */
  async forceReleaseEverywhere(reason: string, nodeCount: number): Promise<void> {
    await this.openForceRelease();
    const dialog = this.forceReleaseDialog;
    await dialog.noSessionChoice("release-now").check();
    await expect(dialog.plan.getByText("will be deleted")).toHaveCount(nodeCount);
    await dialog.forceRelease(reason, "release-now");
    await expect(dialog.status).toContainText(`deleted on ${nodeCount} of ${nodeCount} nodes`);
  }
}
