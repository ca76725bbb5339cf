import { expect, type Locator, type Page } from "@playwright/test";

export class OverviewPage {
  readonly table: Locator;
  readonly nodes: Locator;

  constructor(private readonly page: Page) {
    this.table = page.getByRole("table", { name: "Locks" });
    this.nodes = page.getByRole("region", { name: "Nodes" });
  }

  async goto(query = ""): Promise<void> {
    await this.page.goto(`/${query}`);
    await expect(this.page.getByRole("heading", { name: "Live locks" })).toBeVisible();
  }

  row(resource: string): Locator {
    return this.table
      .getByRole("row")
      .filter({ has: this.page.getByRole("link", { name: resource, exact: true }) });
  }

  /** Remaining validity the row's countdown shows, in ms (read from its data attribute). */
  async remainingMs(resource: string): Promise<number> {
    const value = await this.row(resource)
      .locator("[data-remaining-ms]")
      .getAttribute("data-remaining-ms");
    return Number(value);
  }

  nodeCard(nodeId: string): Locator {
    return this.nodes
      .getByRole("listitem")
      .filter({ has: this.page.getByText(nodeId, { exact: true }) });
  }

  async filterByPattern(pattern: string): Promise<void> {
    await this.page.getByLabel("Resource pattern").fill(pattern);
  }

  async filterByState(state: "held" | "partial" | "conflict" | ""): Promise<void> {
    await this.page.getByLabel("State").selectOption(state);
  }

  sortButton(column: string): Locator {
    return this.table.getByRole("button", { name: column });
  }
}
