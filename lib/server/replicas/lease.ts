import "server-only";
/**
 * The history writer's lease, a key in the state store (CONSOLE_STATE_URL): one replica at a time
 * appends to the shared history. A lease in the store, not this project's Redlock: the history lives
 * in that one Redis, so the store is the only place where the fence can be checked atomically with
 * the write (the append script compares the writer's token there, lua.ts); a Redlock on the lock
 * nodes would add a second failure domain, would put console state on lock nodes (refused on
 * purpose), and its fencing token would still have to be checked in the store.
 *
 * The token is `<epoch>:<replica id>:<random>`: the epoch counts takeovers (for people and logs);
 * the append compares the whole token for EQUALITY. A store restarted without persistence starts
 * its epoch counter over, so "greater or equal" would let a paused old writer back in once the
 * counter caught up; the random part makes an old token never equal a new one.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import { LEASE_SCRIPT, RESIGN_SCRIPT } from "./lua";

export const WRITER_LEASE_KEY = "redlock-console:history-writer";
export const WRITER_EPOCH_KEY = "redlock-console:history-writer:epoch";

/** What the lease says of this replica after a tick. */
export type LeaseRole =
  | { readonly kind: "writer"; readonly token: string; readonly epoch: number }
  | { readonly kind: "follower"; readonly writer: string | null };

/** `<epoch>:<replica id>` of a token: the public part, written beside each entry as `w`. */
export const writerTagOf = (token: string): string => token.slice(0, token.lastIndexOf(":"));

export class WriterLease {
  readonly #client: Redis;
  readonly #replicaId: string;
  readonly #leaseMs: number;
  #role: LeaseRole = { kind: "follower", writer: null };
  /** Local monotonic instant until which this replica's lease is certainly held. */
  #heldUntil = 0;

  constructor(client: Redis, replicaId: string, leaseMs: number) {
    this.#client = client;
    this.#replicaId = replicaId;
    this.#leaseMs = leaseMs;
  }

  /** The role as of the last tick; a writer whose renewal is overdue is no writer. */
  get role(): LeaseRole {
    if (this.#role.kind === "writer" && performance.now() >= this.#heldUntil)
      this.#role = { kind: "follower", writer: null };
    return this.#role;
  }

  /**
   * Renews the lease when this replica holds it, takes it when nobody does; rejects when the
   * store does not answer (the role then lapses at `#heldUntil`).
   */
  async tick(): Promise<LeaseRole> {
    const startedMs = performance.now();
    const mine = this.#role.kind === "writer" ? this.#role.token : "";
    const nonce = randomBytes(8).toString("hex");
    const [token, isMine] = await LEASE_SCRIPT.run(
      this.#client,
      [WRITER_LEASE_KEY, WRITER_EPOCH_KEY],
      [mine, this.#replicaId, String(this.#leaseMs), nonce],
    );
    if (isMine === 1) {
      // Counted from before the request: the store's TTL started no earlier than that.
      this.#heldUntil = startedMs + this.#leaseMs;
      this.#role = { kind: "writer", token, epoch: Number(token.split(":", 1)[0]) };
    } else {
      this.#role = { kind: "follower", writer: writerTagOf(token) };
    }
    return this.#role;
  }

  /** The store refused `token` (the fenced append): this replica no longer holds it. */
  lost(token: string): void {
    if (this.#role.kind === "writer" && this.#role.token === token)
      this.#role = { kind: "follower", writer: null };
  }

  /** Gives the lease up (a graceful stop): the next replica takes over at its next tick. */
  async resign(): Promise<void> {
    const role = this.#role;
    this.#role = { kind: "follower", writer: null };
    if (role.kind === "writer")
      await RESIGN_SCRIPT.run(this.#client, [WRITER_LEASE_KEY], [role.token]);
  }
}
