import { expect, type Page } from "@playwright/test";

export class LoginPage {
  constructor(private readonly page: Page) {}

  async goto(next = "/"): Promise<void> {
    await this.page.goto(`/login?next=${encodeURIComponent(next)}`);
  }

  async submit(token: string): Promise<void> {
    await this.page.getByLabel("Admin token").fill(token);
    await this.page.getByRole("button", { name: "Sign in with the admin token" }).click();
  }

  /** Signs in with the break-glass admin token and waits until the header shows the sign-in. */
  async login(token: string, next = "/"): Promise<void> {
    await this.goto(next);
    await this.submit(token);
    await expect(this.page.getByRole("button", { name: "Sign out" })).toBeVisible();
  }
}
