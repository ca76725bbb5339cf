import { expect, type Locator, type Page } from "@playwright/test";

export type NoSessionChoice = "release-now" | "hold-until-ttl";

const CHOICE_NAMES: Record<NoSessionChoice, RegExp> = {
  "release-now": /^Release now, accepting an overlap/,
  "hold-until-ttl": /^Hold until its TTL/,
};

/** The force-release dialog of the lock page: the holder's liveness, ask first, then force. */
export class ForceReleaseDialog {
  readonly root: Locator;

  constructor(page: Page) {
    // Titled by its action (issue 39 item 6): "Ask the holder to release r" or "Force release r".
    this.root = page.getByRole("dialog", { name: /^(Ask the holder to release|Force release) / });
  }

  get title(): Locator {
    return this.root.getByRole("heading", { level: 2 });
  }

  /** The rule's words before the click: "nobody else gets it for at most N s …". */
  get whatForcingDoes(): Locator {
    return this.root.getByLabel("What forcing does", { exact: true });
  }

  /** The explicit delete-now, its own control: "Delete now (may make two holders until …)". */
  get deleteNowButton(): Locator {
    return this.root.getByRole("button", { name: /^Delete now \(may make two holders until / });
  }

  /** What the dialog says of the holder (its liveness in words). */
  get holder(): Locator {
    return this.root.getByLabel("Holder", { exact: true });
  }

  get plan(): Locator {
    return this.root.getByRole("table", { name: "What force-release does on each node" });
  }

  get reason(): Locator {
    return this.root.getByLabel(/^Reason/);
  }

  get deadline(): Locator {
    return this.root.getByLabel(/^Deadline for the holder to let go/);
  }

  get askButton(): Locator {
    return this.root.getByRole("button", { name: "Ask to release", exact: true });
  }

  get forceButton(): Locator {
    return this.root.getByRole("button", { name: "Force release", exact: true });
  }

  get askProgress(): Locator {
    return this.root.getByRole("region", { name: "Ask to release" });
  }

  get status(): Locator {
    return this.root.getByRole("status");
  }

  noSessionChoice(choice: NoSessionChoice): Locator {
    return this.root.getByRole("radio", { name: CHOICE_NAMES[choice] });
  }

  /** Asks the holder to release within `deadlineS` seconds. */
  async askToRelease(reason: string, deadlineS: number): Promise<void> {
    await this.reason.fill(reason);
    await this.deadline.fill(String(deadlineS));
    await this.askButton.click();
    await expect(this.askProgress).toBeVisible();
  }

  /** Fills the reason, picks the no-session choice when given, and forces. */
  async forceRelease(reason: string, noSession?: NoSessionChoice): Promise<void> {
    await this.reason.fill(reason);
    if (noSession) await this.noSessionChoice(noSession).check();
    await this.forceButton.click();
  }

  async close(): Promise<void> {
    await this.root.getByRole("button", { name: "Close" }).click();
    await expect(this.root).toBeHidden();
  }
}
