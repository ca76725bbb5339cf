import { describe, expect, it } from "vitest";
import { releasingHolderText } from "@/components/locks/owner-text";

describe("a releasing row keeps its holder's name (issue 39 item 6)", () => {
  it("names the holder from its session's labels", () => {
    const labels = { service: "report-worker", host: "e2e-host", pid: "4242", region: "eu" };
    expect(releasingHolderText(labels)).toBe(
      "held by a holder being released: report-worker / e2e-host / 4242",
    );
  });

  it("says the name is unknown rather than guess", () => {
    expect(releasingHolderText(null)).toBe("held by a holder being released (name unknown)");
    expect(releasingHolderText({})).toBe("held by a holder being released (name unknown)");
  });
});
