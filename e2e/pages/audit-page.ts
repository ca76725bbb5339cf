import { expect, type Locator, type Page } from "@playwright/test";

export class AuditPage {
  readonly table: Locator;

  constructor(private readonly page: Page) {
    this.table = page.getByRole("table", { name: "Audit entries" });
  }

  async goto(): Promise<void> {
    await this.page.goto("/audit");
    await expect(this.page.getByRole("heading", { name: "Audit trail" })).toBeVisible();
  }

  entryWithReason(reason: string): Locator {
    return this.table.getByRole("row").filter({ hasText: reason });
  }
}
