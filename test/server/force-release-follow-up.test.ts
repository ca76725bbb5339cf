/**
 * A force-release while a node is paused: the paused node keeps the delete queued and runs it when
 * it resumes. The audit must end up saying so, not only "deleted on 4 nodes". Private masters.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as forceRelease from "@/app/api/locks/force-release/route";
import type { ForceReleaseResponse } from "@/lib/api";
import { connect, disconnect, usePrivateMasters } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const PAUSED = 4;
const masters = usePrivateMasters(5);
let tc: TestConsole;
let nodes: Redis[];

beforeAll(async () => {
  nodes = connect(masters.masters().urls);
  tc = startTestConsole(masters.masters().urls, { nodeTimeoutMs: 300, lockMatch: ["*"] });
  // Connected before the pause: a node paused mid-handshake drops the connection (connect timeout)
  // and the queued delete with it, which the follow-up then rightly reports as never run.
  await tc.ready();
});

afterAll(async () => {
  masters.masters().resume(PAUSED);
  await tc.close();
  await disconnect(nodes);
});

describe("force-release during a node pause", () => {
  it("audits what the queued delete finally did on the paused node", async () => {
    await Promise.all(nodes.map((node) => node.set("paused-lock", "8".repeat(40), "PX", 120_000)));
    masters.masters().pause(PAUSED);
    let response;
    try {
      response = await call<ForceReleaseResponse>(forceRelease.POST, "/api/locks/force-release", {
        body: { resource: "paused-lock", force: true, reason: "node-5 hung, cleanup" },
      });
    } finally {
      masters.masters().resume(PAUSED);
    }
    expect(response.status).toBe(200);
    expect(response.body.deletedCount).toBe(4);
    expect(response.body.nodes[PAUSED]!.outcome).toBe("unreachable");
    const auditId = response.body.auditId;

    await vi.waitFor(
      async () => {
        const { entries } = await tc.ctx.audit.read(50);
        const first = entries.find((entry) => entry.id === auditId);
        expect(first?.detail).toContain("no answer in time from node-5");
        const followUp = entries.find((entry) =>
          entry.detail.startsWith(`follow-up of ${auditId}`),
        );
        expect(followUp).toMatchObject({
          action: "force-release",
          resources: ["paused-lock"],
          reason: "node-5 hung, cleanup",
          outcome: "success",
        });
        expect(followUp!.detail).toContain(
          "node-5: the queued delete ran late and deleted the lock",
        );
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await nodes[PAUSED]!.exists("paused-lock")).toBe(0);
  }, 30_000);
});
