// test-group: timed
/**
 * Holder sessions (docs/holder-sessions.md) on real masters and a real 3-primary cluster, for the
 * project's client kind: the session key's value, TTL and cost on each node, the CLIENT ID it names,
 * a reconnection, quit(); and, with a holder in a process of its own, the raw facts the console
 * derives liveness from: SIGSTOP leaves its connection open while the heartbeat goes late, SIGKILL
 * closes the connection, a 3 s busy event loop makes the heartbeat late and then fresh again.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import Redlock, {
  lateAfterMs,
  sessionKey,
  sessionWindowMs,
  waitersKey,
  type Settings,
} from "@redlock-console/redlock";
import { clientKind } from "../lock-clients";
import { sleep } from "../masters";
import { untilSubscribedEverywhere } from "./fixtures/console-marks";
import { forkHolder } from "./fixtures/fork-holder";
import { useLockNodes, type LockNodes, type Topology } from "./fixtures/lock-nodes";
import { monitor } from "./fixtures/monitor";
import type { HolderArgs, HolderMessage } from "./fixtures/session-holder";

const HEARTBEAT_MS = 200;
const WINDOW_MS = sessionWindowMs(HEARTBEAT_MS);
const LATE_MS = lateAfterMs(HEARTBEAT_MS);

interface Heartbeat {
  readonly v: number;
  readonly labels: Record<string, string>;
  readonly startedAt: number;
  readonly heartbeatMs: number;
  readonly clientId: number;
}

/** Per lock node: the session key's value, the heartbeat's age (window − PTTL), and its server. */
async function heartbeats(nodes: LockNodes, sessionId: string) {
  const key = sessionKey(sessionId);
  return Promise.all(
    nodes.readers.map(async (reader, index) => {
      const [value, pttlMs] = await Promise.all([reader.get(key), reader.pttl(key)]);
      return {
        beat: value === null ? undefined : (JSON.parse(value) as Heartbeat),
        ageMs: pttlMs < 0 ? Infinity : WINDOW_MS - pttlMs,
        server: await nodes.serverOf(index, key),
      };
    }),
  );
}

/** Whether `server` still has the connection `clientId` open (CLIENT LIST ID returns its line). */
const connected = async (server: Redis, clientId: number) =>
  String(await server.client("LIST", "ID", clientId)).includes(`id=${clientId} `);

for (const topology of ["single", "cluster"] as const satisfies readonly Topology[])
  describe(`${clientKind()} clients, ${topology} lock nodes`, () => {
    // One cluster is enough here: a session is per node, and no test needs a majority.
    const nodes = useLockNodes(topology, 1);
    const instances: Redlock[] = [];
    const children: ChildProcess[] = [];
    afterEach(async () => {
      for (const child of children.splice(0)) child.kill("SIGKILL");
      await Promise.all(
        instances.splice(0).map((redlock) => redlock.quit().catch(() => undefined)),
      );
    });

    async function instance(settings: Partial<Settings> = {}): Promise<Redlock> {
      const redlock = new Redlock(await nodes().clients(), {
        retryCount: 0,
        session: { heartbeatMs: HEARTBEAT_MS },
        owner: { service: "session-test" },
        ...settings,
      });
      instances.push(redlock);
      return redlock;
    }

    it("has a 32-hex id and the owner labels; none with session: false or owner: false", async () => {
      const redlock = await instance();
      expect(redlock.session?.id).toMatch(/^[0-9a-f]{32}$/);
      expect(redlock.session?.labels).toMatchObject({
        service: "session-test",
        pid: String(process.pid),
      });
      expect((await instance({ session: false })).session).toBeUndefined();
      expect((await instance({ owner: false })).session).toBeUndefined();
    });

    it("from the first acquire, each node holds the session key as the contract says, naming the connection that sends it", async () => {
      const redlock = await instance();
      const sessionId = redlock.session!.id;
      expect((await heartbeats(nodes(), sessionId)).every(({ beat }) => !beat)).toBe(true);
      const startedBefore = Date.now();
      const lock = await redlock.acquire([`session:${randomUUID()}`], 5_000);
      await vi.waitFor(async () => {
        for (const { beat, ageMs, server } of await heartbeats(nodes(), sessionId)) {
          expect(beat).toMatchObject({
            v: 1,
            labels: redlock.session!.labels,
            heartbeatMs: HEARTBEAT_MS,
            clientId: expect.any(Number),
          });
          expect(beat!.startedAt).toBeLessThanOrEqual(startedBefore);
          expect(ageMs).toBeLessThan(LATE_MS);
          // The SET came from that very connection.
          expect(String(await server.client("LIST", "ID", beat!.clientId))).toMatch(/cmd=set /);
        }
      });
      await lock.release();
    });

    it("sends one SET per heartbeat per node, and nothing else, while no lock is taken", async () => {
      const redlock = await instance();
      const sessionId = redlock.session!.id;
      await (await redlock.acquire([`session-cost:${randomUUID()}`], 5_000)).release();
      await vi.waitFor(async () =>
        expect((await heartbeats(nodes(), sessionId)).every(({ beat }) => beat)).toBe(true),
      );
      await sleep(100);
      const commands: string[][] = nodes().readers.map(() => []);
      const watchedFromMs = Date.now();
      const monitors = await Promise.all(
        (await heartbeats(nodes(), sessionId)).map(async ({ beat, server }, index) => {
          const address = /addr=(\S+)/.exec(
            String(await server.client("LIST", "ID", beat!.clientId)),
          )![1];
          return monitor(server.options.port!, (args, source) => {
            // A cluster client's own slot-map refresh may use the connection too.
            if (source.endsWith(address!) && args[0]?.toLowerCase() !== "cluster")
              commands[index]!.push(args.join(" "));
          });
        }),
      );
      // Three beats on every node, however long a loaded machine takes for them; never more than
      // one per period over the time watched (a count that does not depend on a window).
      await vi.waitFor(() => expect(commands.every((sent) => sent.length >= 3)).toBe(true), {
        timeout: 20_000,
        interval: 20,
      });
      monitors.forEach((watching) => watching.close());
      const watchedMs = Date.now() - watchedFromMs;
      for (const sent of commands) {
        expect(sent.length).toBeLessThanOrEqual(Math.ceil(watchedMs / HEARTBEAT_MS) + 1);
        for (const command of sent)
          expect(command).toMatch(
            new RegExp(
              `^set ${sessionKey(sessionId).replace(/[{}]/g, "\\$&")} .* PX ${WINDOW_MS}$`,
              "i",
            ),
          );
      }
    });

    it("after a reconnection, beats again at once with the new connection's id", async () => {
      const redlock = await instance({ session: { heartbeatMs: 10_000 } });
      const sessionId = redlock.session!.id;
      await (await redlock.acquire([`session-reconnect:${randomUUID()}`], 5_000)).release();
      let before: Awaited<ReturnType<typeof heartbeats>> = [];
      await vi.waitFor(async () => {
        before = await heartbeats(nodes(), sessionId);
        expect(before.every(({ beat }) => beat)).toBe(true);
      });
      const { beat, server } = before[0]!;
      await server.client("KILL", "ID", beat!.clientId);
      await vi.waitFor(
        async () => {
          const [after] = await heartbeats(nodes(), sessionId);
          expect(after!.beat!.clientId).not.toBe(beat!.clientId);
          expect(await connected(after!.server, after!.beat!.clientId)).toBe(true);
        },
        // Well before the next period, 10 s away: half of it is the widest a slow machine needs.
        { timeout: 5_000, interval: 20 },
      );
    });

    it("a waiter entry carries the session", async () => {
      const resource = `session-waiter:${randomUUID()}`;
      const holder = await instance();
      const lock = await holder.acquire([resource], 5_000);
      const contender = await instance({ retryCount: 5, retryDelay: 200 });
      const waiting = contender.acquire([resource], 5_000).catch(() => undefined);
      await vi.waitFor(async () => {
        const members = (
          await Promise.all(
            nodes().readers.map((reader) => reader.zrange(waitersKey(resource), 0, -1)),
          )
        ).flat();
        expect(members.length).toBeGreaterThan(0);
        for (const member of members)
          expect(JSON.parse(member)).toMatchObject({ session: contender.session!.id });
      });
      await lock.release();
      await (await waiting)?.release();
    });

    it("quit() stops the heartbeat and closes the notice subscribers", async () => {
      const redlock = await instance();
      const sessionId = redlock.session!.id;
      await (await redlock.acquire([`session-quit:${randomUUID()}`], 5_000)).release();
      await untilSubscribedEverywhere(nodes().servers, sessionId);
      await redlock.quit();
      await sleep(3 * HEARTBEAT_MS);
      for (const { ageMs } of await heartbeats(nodes(), sessionId))
        expect(ageMs).toBeGreaterThanOrEqual(3 * HEARTBEAT_MS);
      await untilSubscribedEverywhere(nodes().servers, sessionId, false);
    });

    describe("a holder in a process of its own", () => {
      /** Forks the holder and resolves once it holds its lock, with its session id. */
      async function spawnHolder(): Promise<{ child: ChildProcess; sessionId: string }> {
        const args: HolderArgs = {
          kind: clientKind(),
          specs: nodes().specs,
          resource: `session-holder:${randomUUID()}`,
          heartbeatMs: HEARTBEAT_MS,
        };
        const { child, sessionId } = await forkHolder(args, (child) => children.push(child));
        await vi.waitFor(async () => {
          for (const { ageMs } of await heartbeats(nodes(), sessionId))
            expect(ageMs).toBeLessThan(LATE_MS);
        });
        return { child, sessionId };
      }

      const expectFresh = async (sessionId: string) => {
        for (const { ageMs } of await heartbeats(nodes(), sessionId))
          expect(ageMs).toBeLessThan(LATE_MS);
      };

      it("SIGSTOP: its heartbeat stops being refreshed while its connection stays; SIGCONT: fresh again", async () => {
        const { child, sessionId } = await spawnHolder();
        child.kill("SIGSTOP");
        try {
          await sleep(LATE_MS + 4 * HEARTBEAT_MS);
          const stopped = await heartbeats(nodes(), sessionId);
          for (const { beat, ageMs, server } of stopped) {
            expect(ageMs).toBeGreaterThan(LATE_MS);
            expect(await connected(server, beat!.clientId)).toBe(true);
          }
          await sleep(2 * HEARTBEAT_MS);
          const later = await heartbeats(nodes(), sessionId);
          later.forEach(({ ageMs }, index) => expect(ageMs).toBeGreaterThan(stopped[index]!.ageMs));
        } finally {
          child.kill("SIGCONT");
        }
        await vi.waitFor(() => expectFresh(sessionId), { timeout: 20_000, interval: 20 });
      });

      it("SIGKILL: its connection is gone from CLIENT LIST, and the heartbeat goes late", async () => {
        const { child, sessionId } = await spawnHolder();
        const alive = await heartbeats(nodes(), sessionId);
        child.kill("SIGKILL");
        await vi.waitFor(async () => {
          for (const { beat, server } of alive)
            expect(await connected(server, beat!.clientId)).toBe(false);
        });
        await sleep(LATE_MS);
        for (const { ageMs } of await heartbeats(nodes(), sessionId))
          expect(ageMs).toBeGreaterThan(LATE_MS);
      });

      it("a 3 s busy event loop: the heartbeat goes late, then fresh again", async () => {
        const { child, sessionId } = await spawnHolder();
        const idle = new Promise<void>((resolve) =>
          child.on("message", (message: HolderMessage) => message.type === "idle" && resolve()),
        );
        child.send({ busyMs: 3_000 });
        await sleep(LATE_MS + 4 * HEARTBEAT_MS);
        for (const { beat, ageMs, server } of await heartbeats(nodes(), sessionId)) {
          expect(ageMs).toBeGreaterThan(LATE_MS);
          expect(await connected(server, beat!.clientId)).toBe(true);
        }
        await idle;
        await vi.waitFor(() => expectFresh(sessionId), { timeout: 20_000, interval: 20 });
      });
    });
  });
