/** The console's HTTP API as a script would call it: bearer token, JSON body, same-origin Origin. */
import type { APIRequestContext } from "@playwright/test";
import type { LockGrantResponse } from "@/lib/api";
import type { Stack } from "../stack-file";

export class ConsoleApi {
  constructor(
    private readonly request: APIRequestContext,
    private readonly stack: Stack,
  ) {}

  private get origin(): string {
    return `http://127.0.0.1:${this.stack.port}`;
  }

  private headers(): Record<string, string> {
    return {
      authorization: `Bearer ${this.stack.adminToken}`,
      origin: this.origin,
      "content-type": "application/json",
    };
  }

  async acquire(resources: string[], ttlMs: number, fencing = false): Promise<LockGrantResponse> {
    const response = await this.request.post("/api/locks", {
      headers: this.headers(),
      data: { resources, ttlMs, fencing },
    });
    if (response.status() !== 201)
      throw new Error(`acquire answered ${response.status()}: ${await response.text()}`);
    return (await response.json()) as LockGrantResponse;
  }

  async release(resources: string[], value: string): Promise<void> {
    await this.request.post("/api/locks/release", {
      headers: this.headers(),
      data: { resources, value },
    });
  }
}
