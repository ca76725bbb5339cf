/**
 * A force-release while nodes are paused, on private masters: a paused node keeps the write queued
 * and runs it when it resumes, and the audit must end up saying so, not only "tombstoned on 4
 * nodes"; with too few nodes answering to reach a majority, nothing is written (503, as revoke).
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as forceRelease from "@/app/api/locks/force-release/route";
import type { ErrorBody, ForceReleaseResponse } from "@/lib/api";
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
  it("audits what the queued write finally did on the paused node", async () => {
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
    // Issue 39: force: true tombstones each node's value (it used to delete it at once).
    expect(response.body).toMatchObject({ mode: "tombstoned", deletedCount: 0, majority: true });
    expect(response.body.tombstonedCount).toBe(4);
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
          followUpOf: auditId,
          holderDid: null,
        });
        expect(followUp!.detail).toContain(
          "node-5: the queued write ran late and replaced the lock by its tombstone",
        );
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await nodes[PAUSED]!.get("paused-lock")).toMatch(/^rlx:8{40}:/);
  }, 30_000);

  it("answers 503 quorum_unavailable and writes nothing when too few nodes answer to reach a majority", async () => {
    const value = "6".repeat(40);
    await Promise.all(nodes.map((node) => node.set("few-answer", value, "PX", 60_000)));
    for (const index of [2, 3, 4]) masters.masters().pause(index);
    let response;
    try {
      response = await call<ErrorBody & { error: { details?: ForceReleaseResponse } }>(
        forceRelease.POST,
        "/api/locks/force-release",
        {
          body: {
            resource: "few-answer",
            expectedValue: value,
            noSession: "hold-until-ttl",
            reason: "three nodes hung",
          },
        },
      );
    } finally {
      for (const index of [2, 3, 4]) masters.masters().resume(index);
    }
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe("quorum_unavailable");
    expect(await Promise.all(nodes.map((node) => node.get("few-answer")))).toEqual(
      Array(5).fill(value),
    );
    const { entries } = await tc.ctx.audit.read(50);
    expect(entries[0]).toMatchObject({ action: "force-release", outcome: "failure" });
    expect(entries[0]!.detail).toContain("quorum_unavailable");
  }, 30_000);
});
