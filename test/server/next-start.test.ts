/**
 * The built console under a real `next start`, launched by scripts/start.ts: real HTTP, the proxy,
 * the embedded mode, a bad environment, and an audit trail that outlives the console process.
 * Needs a build in a separate dist dir, so it runs only when asked:
 *   NEXT_DIST_DIR=.data/next-smoke npx next build
 *   CONSOLE_SMOKE_DIST_DIR=.data/next-smoke npx vitest run test/server/next-start.test.ts
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AuditResponse, LockGrantResponse, LocksResponse } from "@/lib/api";
import { freePort } from "@/scripts/redis-masters";
import { usePrivateMasters } from "../masters";

const distDir = process.env.CONSOLE_SMOKE_DIST_DIR;
const enabled = distDir !== undefined && existsSync(path.join(distDir, "BUILD_ID"));
const token = "smoke-admin-token-0123456789abcdef";

/** A non-loopback IPv4 address of this machine, if it has one. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((info) => info !== undefined && info.family === "IPv4" && !info.internal)?.address;

/** Whether a TCP connection to host:port is accepted. */
const reachable = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

interface Started {
  readonly base: string;
  readonly child: ChildProcess;
  output(): string;
}

async function startConsole(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const child = spawn("node_modules/.bin/tsx", ["scripts/start.ts"], {
    env: { ...process.env, NEXT_DIST_DIR: distDir, PORT: String(port), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 120 && child.exitCode === null; tries += 1) {
    if (output.includes("Redlock Console:")) return { base, child, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill("SIGKILL");
  throw new Error(`the console did not start:\n${output}`);
}

async function stopConsole(started: Started): Promise<number | null> {
  if (started.child.exitCode !== null) return started.child.exitCode;
  const exited = new Promise<number | null>((resolve) =>
    started.child.once("exit", (code) => resolve(code)),
  );
  started.child.kill("SIGTERM");
  return exited;
}

const post = (base: string, route: string, body: unknown) =>
  fetch(`${base}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe.skipIf(!enabled)("the built console under next start", () => {
  const masters = usePrivateMasters(5);
  const nodesEnv = () => ({
    REDLOCK_NODES: masters.masters().urls.join(","),
    CONSOLE_ADMIN_TOKEN: token,
  });

  it("serves the API over real HTTP, and its audit trail outlives the process", async () => {
    const first = await startConsole(nodesEnv());
    let auditId: string;
    try {
      expect((await fetch(`${first.base}/api/locks/%FF`)).status).toBe(400);
      const notAllowed = await fetch(`${first.base}/api/locks`, { method: "DELETE" });
      expect(notAllowed.status).toBe(405);
      expect(await notAllowed.json()).toMatchObject({ error: { code: "method_not_allowed" } });
      const slashed = "smoke:a/b c ✓";
      expect(
        (await post(first.base, "/api/locks", { resources: [slashed], ttlMs: 5_000 })).status,
      ).toBe(201);
      const one = await (
        await fetch(`${first.base}/api/locks/${encodeURIComponent(slashed)}`)
      ).json();
      expect(one.lock).toMatchObject({ resource: slashed, state: "held" });
      const acquired = await post(first.base, "/api/locks", {
        resources: ["smoke:1"],
        ttlMs: 30_000,
      });
      expect(acquired.status).toBe(201);
      const { lock } = (await acquired.json()) as LockGrantResponse;
      const list = (await (
        await fetch(`${first.base}/api/locks?match=smoke:*`)
      ).json()) as LocksResponse;
      const row = list.items.find((item) => item.resource === "smoke:1");
      expect([row?.state, row?.value]).toEqual(["held", lock.value]);
      const forced = await post(first.base, "/api/locks/force-release", {
        resource: "smoke:1",
        expectedValue: lock.value,
        noSession: "release-now",
        reason: "smoke test",
      });
      expect(forced.status).toBe(200);
      auditId = ((await forced.json()) as { auditId: string }).auditId;
    } finally {
      expect(await stopConsole(first)).toBe(0);
    }
    const second = await startConsole(nodesEnv());
    try {
      const audit = (await (await fetch(`${second.base}/api/audit`)).json()) as AuditResponse;
      expect(audit.entries.find((entry) => entry.id === auditId)).toMatchObject({
        action: "force-release",
        reason: "smoke test",
      });
    } finally {
      await stopConsole(second);
    }
  }, 120_000);

  it.skipIf(externalAddress === undefined)(
    "listens on 127.0.0.1 only, whatever HOSTNAME says (issue 32 row 1), and where CONSOLE_HOST says",
    async () => {
      const started = await startConsole({ ...nodesEnv(), HOSTNAME: "0.0.0.0" });
      try {
        const port = Number(new URL(started.base).port);
        expect((await fetch(`${started.base}/api/health`)).ok).toBe(true);
        expect(await reachable(externalAddress!, port)).toBe(false);
      } finally {
        await stopConsole(started);
      }
      const open = await startConsole({ ...nodesEnv(), CONSOLE_HOST: "0.0.0.0" });
      try {
        expect(await reachable(externalAddress!, Number(new URL(open.base).port))).toBe(true);
      } finally {
        await stopConsole(open);
      }
    },
  );

  it("embedded mode starts five masters, prints a token, and stops them on SIGTERM", async () => {
    const started = await startConsole({ REDLOCK_NODES: "", CONSOLE_ADMIN_TOKEN: "" });
    const printed = /CONSOLE_ADMIN_TOKEN\): (\S+)/.exec(started.output())?.[1];
    const ports = [...started.output().matchAll(/redis:\/\/127\.0\.0\.1:(\d+)/g)].map((match) =>
      Number(match[1]),
    );
    expect(ports).toHaveLength(5);
    const health = await (await fetch(`${started.base}/api/health`)).json();
    expect(health).toMatchObject({ status: "ok", reachableNodes: 5 });
    const response = await fetch(`${started.base}/api/nodes`, {
      headers: { authorization: `Bearer ${printed}` },
    });
    expect(response.status).toBe(200);
    expect(await stopConsole(started)).toBe(0);
    const net = await import("node:net");
    for (const port of ports) {
      const open = await new Promise((resolve) => {
        const socket = net
          .connect({ port, host: "127.0.0.1" }, () => resolve(true))
          .on("error", () => resolve(false));
        socket.unref();
      });
      expect(open).toBe(false);
    }
  }, 120_000);

  it("refuses a bad environment before starting, naming each bad variable", async () => {
    const child = spawn("node_modules/.bin/tsx", ["scripts/start.ts"], {
      env: {
        ...process.env,
        REDLOCK_NODES: "http://wrong",
        CONSOLE_READ_ONLY: "perhaps",
        CONSOLE_ADMIN_TOKEN: token,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stderr!.on("data", (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(output).toContain("REDLOCK_NODES[0]");
    expect(output).toContain("CONSOLE_READ_ONLY");
  }, 60_000);
});
