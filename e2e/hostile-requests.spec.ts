/**
 * Issue 11, item 7, against the built console under `next start`: requests Next.js never sees as a
 * Request (TRACE, a 60 KB query) and a bad configuration at start.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { createRequire } from "node:module";
import { freePort } from "@/scripts/redis-masters";
import { expect, test } from "./support/fixtures";

function rawRequest(
  port: number,
  method: string,
  path: string,
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .request({ host: "127.0.0.1", port, method, path }, (response) => {
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers["content-type"] ?? "",
            body,
          }),
        );
      })
      .on("error", reject)
      .end();
  });
}

test("TRACE, an unknown API path and a 60 KB query each get a JSON 4xx", async ({ stack }) => {
  const trace = await rawRequest(stack.port, "TRACE", "/api/locks");
  expect([trace.status, JSON.parse(trace.body).error.code]).toEqual([405, "method_not_allowed"]);
  const unknown = await rawRequest(stack.port, "GET", "/api/no-such-route");
  expect([unknown.status, JSON.parse(unknown.body).error.code]).toEqual([404, "not_found"]);
  const long = await rawRequest(stack.port, "GET", `/api/locks?match=${"a".repeat(60_000)}`);
  expect(long.status).toBe(431);
  expect(long.type).toBe("application/json");
  expect(JSON.parse(long.body).error.code).toBe("invalid_request");
});

test("next start with a bad configuration exits with the message instead of serving 500s", async ({
  stack,
}) => {
  const port = await freePort();
  const nextCli = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const child = spawn(process.execPath, [nextCli, "start", "-p", String(port), "-H", "127.0.0.1"], {
    env: {
      ...process.env,
      REDLOCK_NODES: stack.urls.join(","),
      CONSOLE_ADMIN_TOKEN: "admin123",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exitCode = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(null);
    }, 30_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  expect(exitCode, output).toBe(1);
  expect(output).toContain("CONSOLE_ADMIN_TOKEN: is too weak");
  expect(output).toContain("openssl rand -hex 32");
  expect(output).not.toContain("admin123");
});
