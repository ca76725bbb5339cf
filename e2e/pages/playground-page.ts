import { expect, type Locator, type Page } from "@playwright/test";

export class PlaygroundPage {
  readonly heldLock: Locator;
  readonly lastOperation: Locator;

  constructor(private readonly page: Page) {
    this.heldLock = page.getByRole("region", { name: "Held lock" });
    this.lastOperation = page.getByRole("region", { name: /Last operation/ });
  }

  async goto(): Promise<void> {
    await this.page.goto("/playground");
    await expect(this.page.getByRole("heading", { name: "Playground" })).toBeVisible();
  }

  get acquireButton(): Locator {
    return this.page.getByRole("button", { name: "Acquire" });
  }

  async acquire(resources: string[], ttlMs: number, fencing = false): Promise<void> {
    await this.page.getByLabel("Resources (one per line)").fill(resources.join("\n"));
    await this.page.getByLabel("TTL (ms)").fill(String(ttlMs));
    await this.page.getByLabel(/Fencing token/).setChecked(fencing);
    await this.acquireButton.click();
  }

  async extend(ttlMs: number): Promise<void> {
    await this.heldLock.getByLabel("Extend to TTL (ms)").fill(String(ttlMs));
    await this.heldLock.getByRole("button", { name: "Extend" }).click();
  }

  async release(): Promise<void> {
    await this.heldLock.getByRole("button", { name: "Release" }).click();
  }

  async remainingMs(): Promise<number> {
    return Number(
      await this.heldLock.locator("[data-remaining-ms]").getAttribute("data-remaining-ms"),
    );
  }

  get votes(): Locator {
    return this.lastOperation.getByRole("table", { name: "Node votes" });
  }
}
