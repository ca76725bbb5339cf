import type { TestProject } from "vitest/node";
import { startMasters, type Masters } from "@/scripts/redis-masters";

let masters: Masters | undefined;

/** Starts five shared local masters on free ports for every test file (read with `inject("redisUrls")`). */
export async function setup(project: TestProject): Promise<void> {
  masters = await startMasters({ count: 5, dataDir: ".data/test-masters" });
  project.provide("redisUrls", masters.urls);
}

export async function teardown(): Promise<void> {
  await masters?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrls: string[];
  }
}
