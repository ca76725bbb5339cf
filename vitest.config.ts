import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // Tests run on the library's source, not on its build.
      "@redlock-console/redlock": path.resolve(import.meta.dirname, "lib/redlock/index.ts"),
    },
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "ioredis",
          include: ["lib/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"],
          provide: { clientKind: "ioredis" },
        },
      },
      {
        // The library's algorithm tests again, with node-redis clients (test/lock-clients.ts).
        extends: true,
        test: {
          name: "node-redis",
          include: ["test/redlock/**/*.test.ts"],
          // batch and handoff (pub/sub): ioredis only; settings and quorum: no client at all.
          exclude: [
            "test/redlock/batch.test.ts",
            "test/redlock/handoff.test.ts",
            "test/redlock/settings.test.ts",
            "test/redlock/quorum.test.ts",
          ],
          provide: { clientKind: "node-redis" },
        },
      },
    ],
    globalSetup: ["test/global-setup.ts"],
    // Tests that pause or kill masters start their own; the shared five are never faulted.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    server: { deps: { inline: ["server-only"] } },
    alias: { "server-only": path.resolve(import.meta.dirname, "test/server-only-stub.ts") },
  },
});
