/** The liveness probe: a PING per heartbeat against the node timeout. No Redis. */
import { describe, expect, it } from "vitest";
import { LivenessProbe } from "@/lib/server/locks/watch/liveness-probe";
import { FakeClock } from "./fake-clock";

function probeOf() {
  const clock = new FakeClock();
  const answers: Array<() => void> = [];
  let failNext = false;
  const client = {
    pings: 0,
    ping(): Promise<unknown> {
      client.pings += 1;
      if (failNext) return Promise.reject(new Error("Command timed out"));
      return new Promise((resolve) => answers.push(() => resolve("PONG")));
    },
  };
  const changes: boolean[] = [];
  const probe = new LivenessProbe({
    client,
    clock,
    nodeTimeoutMs: 1_500,
    onChange: (responsive) => changes.push(responsive),
  });
  const answer = async () => {
    for (const resolve of answers.splice(0)) resolve();
    await clock.advance(0);
  };
  return { clock, client, probe, changes, answer, failNext: () => (failNext = true) };
}

describe("the liveness probe", () => {
  it("sends one PING at a time, and reports nothing while the node answers", async () => {
    const { clock, client, probe, changes, answer } = probeOf();
    probe.check();
    probe.check(); // the first is still unanswered, within the timeout
    expect(client.pings).toBe(1);
    await answer();
    await clock.advance(1_000);
    probe.check();
    expect(client.pings).toBe(2);
    expect(changes).toEqual([]);
  });

  it("marks a node that leaves a PING unanswered past the timeout unresponsive, then responsive on the answer", async () => {
    const { clock, probe, changes, answer } = probeOf();
    probe.check();
    await clock.advance(1_500);
    probe.check();
    expect(changes).toEqual([]); // not past the timeout yet
    await clock.advance(1);
    probe.check();
    probe.check();
    expect(changes).toEqual([false]);
    await answer();
    expect(changes).toEqual([false, true]);
  });

  it("marks the node unresponsive when the command timeout rejects its PING", async () => {
    const { clock, probe, changes, failNext } = probeOf();
    failNext();
    probe.check();
    await clock.advance(0);
    expect(changes).toEqual([false]);
  });

  it("reports no change on a reset: a reconnected node answers", async () => {
    const { clock, probe, changes, failNext } = probeOf();
    failNext();
    probe.check();
    await clock.advance(0);
    probe.reset();
    expect(changes).toEqual([false]);
  });
});
