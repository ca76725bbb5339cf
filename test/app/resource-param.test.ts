import { describe, expect, it } from "vitest";
import { resourceFromSegments } from "@/app/locks/[...resource]/resource-param";

describe("resourceFromSegments", () => {
  it("round-trips names encoded with encodeURIComponent, slashes and spaces included", () => {
    for (const name of ["orders:42", "jobs/nightly report", "100%", "ü/ß?#&"]) {
      expect(resourceFromSegments([encodeURIComponent(name)])).toBe(name);
    }
  });

  it("joins a hand-typed path with slashes back into one name", () => {
    expect(resourceFromSegments(["a", "b"])).toBe("a/b");
  });

  it("takes a malformed escape literally instead of failing", () => {
    expect(resourceFromSegments(["50%off"])).toBe("50%off");
  });
});
