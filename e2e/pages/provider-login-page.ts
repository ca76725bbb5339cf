import type { Page } from "@playwright/test";

/** The test identity provider's own login page (test/support/oidc-provider.ts). */
export class ProviderLoginPage {
  constructor(private readonly page: Page) {}

  async signIn(login: string, password: string): Promise<void> {
    await this.page.getByLabel("Username").fill(login);
    await this.page.getByLabel("Password").fill(password);
    await this.page.getByRole("button", { name: "Sign in" }).click();
  }
}
