/**
 * A lock holder's session written by hand against the e2e masters, byte for byte as
 * docs/holder-sessions.md fixes it (what the library's session does, without the library): one
 * connection per node whose CLIENT ID the heartbeat records, the heartbeat
 * `SET redlock:session:{id} <json> PX <window − age>`, lock values carrying the id, and, when asked
 * to release (revoke), the release and its record (`releasedAt` in the revoke marker).
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { revokeKey } from "../../lib/redlock/keys";

/** The session key's TTL for a 1 s heartbeat: 60 × heartbeatMs. */
const SESSION_WINDOW_MS = 60_000;
const HEARTBEAT_MS = 1_000;

export class FakeHolderSession {
  readonly id = randomBytes(16).toString("hex");
  readonly key = `redlock:session:{${this.id}}`;
  #timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly connections: Redis[],
    private readonly clientIds: number[],
    readonly labels: Record<string, string>,
  ) {}

  static async open(urls: string[], labels: Record<string, string>): Promise<FakeHolderSession> {
    const connections = urls.map((url) => new Redis(url, { maxRetriesPerRequest: 1 }));
    const clientIds = await Promise.all(
      connections.map(async (connection) => Number(await connection.client("ID"))),
    );
    return new FakeHolderSession(connections, clientIds, labels);
  }

  /** One heartbeat on every node, as if sent `ageMs` ago (older than 3 s reads as late). */
  async heartbeat(ageMs = 0): Promise<void> {
    await Promise.all(
      this.connections.map((connection, index) =>
        connection.set(
          this.key,
          JSON.stringify({
            v: 1,
            labels: this.labels,
            startedAt: Date.now() - 60_000,
            heartbeatMs: HEARTBEAT_MS,
            clientId: this.clientIds[index],
          }),
          "PX",
          SESSION_WINDOW_MS - ageMs,
        ),
      ),
    );
  }

  /** A heartbeat now and every second after, as a live process sends them. */
  async keepAlive(): Promise<void> {
    await this.heartbeat();
    this.#timer = setInterval(() => void this.heartbeat().catch(() => undefined), HEARTBEAT_MS);
    // A test that fails before close() must not keep the worker alive.
    this.#timer.unref();
  }

  /** A lock value of this session: `rl1:<token>:{…,"session":"<id>"}`. */
  value(ttlMs: number): string {
    const owner = { acquiredAt: Date.now(), ttlMs, labels: this.labels, session: this.id };
    return `rl1:${randomBytes(20).toString("hex")}:${JSON.stringify(owner)}`;
  }

  /**
   * What the library does when asked to release and its routine has settled: deletes its lock
   * (compare-and-delete) and records the release in the revoke marker (`releasedAt`, KEEPTTL).
   */
  async releaseAsAsked(resource: string, value: string): Promise<void> {
    await Promise.all(
      this.connections.map(async (connection) => {
        if ((await connection.get(resource)) === value) await connection.del(resource);
        const marker = await connection.get(revokeKey(resource));
        if (marker === null) return;
        const recorded = { ...(JSON.parse(marker) as object), releasedAt: Date.now() };
        await connection.set(revokeKey(resource), JSON.stringify(recorded), "KEEPTTL");
      }),
    );
  }

  /** Stops the heartbeats and removes the session key (a clean shutdown). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.connections.map((connection) => connection.del(this.key)));
    await Promise.all(this.connections.map((connection) => connection.quit()));
  }
}
