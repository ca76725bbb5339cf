import { expect, type Page } from "@playwright/test";

export class LoginPage {
  constructor(private readonly page: Page) {}

  async goto(next = "/"): Promise<void> {
    await this.page.goto(`/login?next=${encodeURIComponent(next)}`);
  }

  async submit(token: string): Promise<void> {
    await this.page.getByLabel("Admin token").fill(token);
    await this.page.getByRole("button", { name: "Log in" }).click();
  }

  /** Logs in and waits until the header shows the admin session. */
  async login(token: string, next = "/"): Promise<void> {
    await this.goto(next);
    await this.submit(token);
    await expect(this.page.getByRole("button", { name: "Log out" })).toBeVisible();
  }
}
