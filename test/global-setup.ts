import type { TestProject } from "vitest/node";
import { startMasters } from "@/scripts/redis-masters";

/**
 * Five shared local masters on free ports for a project's test files (read with
 * `inject("redisUrls")`). Vitest runs a global setup once per project (the root, then each client
 * kind and group), each in a module of its own: every project gets its own five, so the serial
 * group's timed files never share masters with what the parallel group left running; the
 * function returned stops them with their project.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const masters = await startMasters({ count: 5, dataDir: ".data/test-masters" });
  project.provide("redisUrls", masters.urls);
  return () => masters.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrls: string[];
  }
}
