/**
 * The browser's ApiError names the request that failed, as ky's HTTPError does (issue 40, item 4):
 * apiFetch against a real HTTP server. The only stand-in is the base URL a browser would add to
 * the console's own path (Node's fetch takes absolute URLs only).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { apiFetch } from "@/app/_queries/api-fetch";
import { ApiError } from "@/lib/api";

const CHANGED =
  "A node holds another value than expected: the lock changed hands since you looked.";
const DETAILS = { resource: "orders:42", deletedCount: 0 };

let server: Server;
let base = "";

function useBase(origin: string) {
  const realFetch = globalThis.fetch;
  vi.stubGlobal("fetch", (path: string, init?: RequestInit) => realFetch(origin + path, init));
}

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/api/locks/force-release") {
      response.writeHead(409, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { code: "value_changed", message: CHANGED, details: DETAILS } }),
      );
      return;
    }
    response.writeHead(502, { "content-type": "text/plain" });
    response.end("bad gateway");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  vi.unstubAllGlobals();
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable("the request should fail"),
    (error: unknown) => error as ApiError,
  );

describe("apiFetch's errors", () => {
  it("keep the server's code, message and details, and name the method, path and status", async () => {
    useBase(base);
    const error = await failureOf(
      apiFetch("/api/locks/force-release", { method: "POST", body: {} }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe("value_changed");
    expect(error.status).toBe(409);
    expect(error.details).toEqual(DETAILS);
    expect(error.request).toEqual({ method: "POST", path: "/api/locks/force-release" });
    expect(error.message).toBe(`${CHANGED} (POST /api/locks/force-release: 409)`);
  });

  it("name the request of an answer without an error body", async () => {
    useBase(base);
    const error = await failureOf(apiFetch("/api/nodes"));
    expect(error.code).toBe("http_error");
    expect(error.message).toBe("The console answered 502 Bad Gateway. (GET /api/nodes: 502)");
  });

  it("name the request nobody answered", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    useBase(`http://127.0.0.1:${port}`);
    const error = await failureOf(apiFetch("/api/session", { method: "DELETE" }));
    expect(error.code).toBe("network");
    expect(error.status).toBe(0);
    expect(error.message).toMatch(/ \(DELETE \/api\/session: no answer\)$/);
  });
});

describe("ApiError on the server", () => {
  it("takes its details and headers as options and keeps the message as written", () => {
    const error = new ApiError("rate_limited", "Too many.", {
      details: DETAILS,
      headers: { "retry-after": "3" },
    });
    expect(error.message).toBe("Too many.");
    expect(error.status).toBe(429);
    expect(error.details).toEqual(DETAILS);
    expect(error.headers).toEqual({ "retry-after": "3" });
    expect(error.request).toBeUndefined();
  });
});
