import { describe, expect, it } from "vitest";
import { CONSOLE_SERVICE, consoleOwnerLabels } from "@/lib/server/actions/console-owner";

describe("owner labels of the console's own locks", () => {
  it("name the console and the operator by the audit label, never the credential", () => {
    const labels = consoleOwnerLabels({ label: "session:1a2b3c4d" });
    expect(labels).toEqual({ service: CONSOLE_SERVICE, operator: "session:1a2b3c4d" });
    expect(CONSOLE_SERVICE).toBe("redlock-console");
  });
});
