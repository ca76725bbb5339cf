/**
 * The contention routes are reads: they follow CONSOLE_PUBLIC_READ like every read (401 without a
 * credential when reads are closed), refuse other methods with the API's error shape, and serve
 * the graph and wait figures in the shapes the UI and outside checks parse.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as contention from "@/app/api/contention/route";
import * as waits from "@/app/api/contention/waits/route";
import { contentionResponseSchema, waitsResponseSchema, type ErrorBody } from "@/lib/api";
import { sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

let tc: TestConsole;

beforeAll(async () => {
  tc = startTestConsole(sharedUrls(), { publicRead: false });
  await tc.sync();
});

afterAll(async () => {
  await tc.close();
});

describe("GET /api/contention and /api/contention/waits", () => {
  it("answer 401 without a credential when reads are not public, and the documented shapes with one", async () => {
    for (const [handler, path, schema] of [
      [contention.GET, "/api/contention", contentionResponseSchema],
      [waits.GET, "/api/contention/waits", waitsResponseSchema],
    ] as const) {
      const refused = await call<ErrorBody>(handler, path, { token: null });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe("unauthorized");
      const served = await call(handler, path);
      expect(served.status).toBe(200);
      expect(schema.safeParse(served.body).success).toBe(true);
    }
  });

  it("answers 400 invalid_request for a resource query that is empty or longer than any key, and charts one lock when asked", async () => {
    for (const query of ["?resource=", `?resource=${"a".repeat(8193)}`]) {
      const refused = await call<ErrorBody>(waits.GET, `/api/contention/waits${query}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
    }
    const one = await call<{ resource: string | null }>(
      waits.GET,
      "/api/contention/waits?resource=orders%3A1",
    );
    expect(one.status).toBe(200);
    expect(one.body.resource).toBe("orders:1");
  });

  it("refuse POST with 405 and the API's error body: nothing changes state here", async () => {
    const refused = await call<ErrorBody>(contention.POST, "/api/contention", { body: {} });
    expect(refused.status).toBe(405);
    expect(refused.body.error.code).toBe("method_not_allowed");
  });
});
