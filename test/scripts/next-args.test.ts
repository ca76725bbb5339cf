/**
 * Issue 32 row 1: `next start -p` listens on every interface and ignores HOSTNAME, so a console
 * started with reads public was reachable from the network. npm start now always passes
 * `--hostname` from CONSOLE_HOST (default 127.0.0.1), and the container files say 0.0.0.0.
 */
import { readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/server/config";
import { nextServerArgs, probeHost } from "@/scripts/next-args";

const env = {
  REDLOCK_NODES: "redis://127.0.0.1:7001",
  CONSOLE_ADMIN_TOKEN: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
};

/** A non-loopback IPv4 address of this machine, if it has one. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((info) => info !== undefined && info.family === "IPv4" && !info.internal)?.address;

/** Whether a TCP connection to host:port is accepted. */
async function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Listens the way `next start --hostname <host>` does (Node's server.listen(port, host)). */
async function listenLikeNext(args: readonly string[]): Promise<{ port: number; close(): void }> {
  const hostIndex = args.indexOf("--hostname");
  const host = hostIndex >= 0 ? args[hostIndex + 1] : undefined; // next: absent means every interface
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { port: address.port, close: () => server.close() };
}

describe("where npm start listens (issue 32 row 1)", () => {
  it("defaults CONSOLE_HOST to 127.0.0.1 and never takes HOSTNAME", () => {
    expect(parseConfig(env).host).toBe("127.0.0.1");
    expect(parseConfig({ ...env, HOSTNAME: "0.0.0.0" }).host).toBe("127.0.0.1");
    expect(parseConfig({ ...env, HOSTNAME: "3f2a9c1d0b7e" }).host).toBe("127.0.0.1");
    expect(parseConfig({ ...env, CONSOLE_HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
    expect(() => parseConfig({ ...env, CONSOLE_HOST: "a b" })).toThrow(/CONSOLE_HOST/);
  });

  it("passes --hostname to next start and next dev, always", () => {
    const host = parseConfig({ ...env, HOSTNAME: "0.0.0.0" }).host;
    expect(nextServerArgs({ dev: false, port: "3000", host })).toEqual([
      "start",
      "-p",
      "3000",
      "--hostname",
      "127.0.0.1",
    ]);
    expect(nextServerArgs({ dev: true, port: "4000", host: "0.0.0.0" })).toEqual([
      "dev",
      "-p",
      "4000",
      "--hostname",
      "0.0.0.0",
    ]);
  });

  it.skipIf(externalAddress === undefined)(
    "is not reachable on another interface by default (a real bind with the arguments npm start builds)",
    async () => {
      const args = nextServerArgs({ dev: false, port: "0", host: parseConfig(env).host });
      const server = await listenLikeNext(args);
      try {
        expect(await reachable("127.0.0.1", server.port)).toBe(true);
        expect(await reachable(externalAddress!, server.port)).toBe(false);
      } finally {
        server.close();
      }
    },
  );

  it("probes readiness where the console listens", () => {
    expect(probeHost("127.0.0.1")).toBe("127.0.0.1");
    expect(probeHost("0.0.0.0")).toBe("127.0.0.1");
    expect(probeHost("::")).toBe("[::1]");
    expect(probeHost("::1")).toBe("[::1]");
  });

  it("says 0.0.0.0 explicitly in the Docker image and the compose file", () => {
    expect(readFileSync("Dockerfile", "utf8")).toMatch(/^ENV CONSOLE_HOST=0\.0\.0\.0$/m);
    expect(readFileSync("docker-compose.yml", "utf8")).toMatch(/CONSOLE_HOST: "0\.0\.0\.0"/);
  });
});
