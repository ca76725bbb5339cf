import { expect, type Locator, type Page } from "@playwright/test";

/** `/sessions` (every live holder session) and `/sessions/<id>` (one, and releasing all it holds). */
export class HolderSessionsPage {
  readonly table: Locator;

  constructor(private readonly page: Page) {
    this.table = page.getByRole("table", { name: "Holder sessions" });
  }

  /** Opens the list from the main navigation. */
  async open(): Promise<void> {
    await this.page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Holder sessions" })
      .click();
    await expect(
      this.page.getByRole("heading", { level: 1, name: "Holder sessions" }),
    ).toBeVisible();
  }

  /** The list's row of the session whose headline labels read `headline` and whose id is `id`. */
  row(id: string): Locator {
    return this.table.getByRole("row").filter({ hasText: id.slice(0, 8) });
  }

  async openSession(id: string, headline: string): Promise<void> {
    await this.row(id).getByRole("link", { name: headline }).click();
    await expect(
      this.page.getByRole("heading", { level: 1, name: `Holder session ${id}` }),
    ).toBeVisible();
  }

  get locksHeld(): Locator {
    return this.page.getByRole("table", { name: "Locks held" });
  }

  get summary(): Locator {
    return this.page.getByRole("region", { name: "Summary" });
  }

  async preview(): Promise<Locator> {
    await this.page.getByRole("button", { name: "Preview the release" }).click();
    const preview = this.page.getByRole("region", { name: "Release preview" });
    await expect(preview).toBeVisible();
    return preview.getByRole("table", { name: "Locks to release" });
  }

  get previewRegion(): Locator {
    return this.page.getByRole("region", { name: "Release preview" });
  }

  /** Fills the confirmation: the reason, the deadline (when asking), the locks' count (when several). */
  async fillRelease(reason: string, options: { deadlineS?: string; count?: number } = {}) {
    const preview = this.previewRegion;
    await preview.getByLabel(/^Reason/).fill(reason);
    if (options.deadlineS !== undefined)
      await preview.getByLabel(/^Deadline/).fill(options.deadlineS);
    if (options.count !== undefined)
      await preview.getByLabel(/^Type the number of locks/).fill(String(options.count));
  }

  get askButton(): Locator {
    return this.previewRegion.getByRole("button", { name: /^Ask to release/ });
  }

  get forceAnywayButton(): Locator {
    return this.previewRegion.getByRole("button", { name: "Force release anyway" });
  }

  /** Asks the session to release (the form filled); returns the table of what was asked. */
  async askToRelease(): Promise<Locator> {
    await this.askButton.click();
    const asked = this.page.getByRole("region", { name: "Ask to release" });
    await expect(asked).toBeVisible();
    return asked.getByRole("table", { name: "Asked to release" });
  }

  /** Past the deadline: forces what the session still holds; returns the result's table. */
  async forceWhatItStillHolds(): Promise<Locator> {
    await this.page.getByRole("button", { name: "Force release what it still holds" }).click();
    const result = this.page.getByRole("region", { name: "Release result" });
    await expect(result).toBeVisible();
    return result.getByRole("table", { name: "Release result" });
  }
}
