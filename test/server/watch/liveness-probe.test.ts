/**
 * The liveness probe: a PING per heartbeat against the node timeout, on a fake clock; and once on
 * a real master, with this process stalled past the timeout while the answer arrives.
 */
import { describe, expect, it } from "vitest";
import { systemClock } from "@/lib/server/locks/watch/io/clock";
import { LivenessProbe } from "@/lib/server/locks/watch/node/liveness-probe";
import { usePrivateClient } from "../../masters";
import { FakeClock } from "./fake-clock";

/** The judgement of an overdue PING runs after a turn of the event loop (two immediates). */
const afterIo = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
const client = usePrivateClient();

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
    await afterIo();
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

  it("a PING answered while this process stalled past the timeout is not judged unanswered (real master)", async () => {
    const changes: boolean[] = [];
    const probe = new LivenessProbe({
      client: client(),
      clock: systemClock,
      nodeTimeoutMs: 200,
      onChange: (responsive) => changes.push(responsive),
    });
    await client().ping(); // connected: the next PING goes out at once
    probe.check(); // sends the PING
    // This process stalls (GC, a starved CPU) while the master answers at once; then the next
    // heartbeat's timer runs before the answer is read from the socket.
    const stalledUntil = Date.now() + 400;
    while (Date.now() < stalledUntil);
    probe.check();
    await afterIo();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(changes).toEqual([]);
  });
});
