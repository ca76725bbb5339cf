/**
 * What the node store keeps per lock per node: the IndexedState every reader sees, and its compact
 * implementation (node-store.ts creates them).
 */
import { lockFormatSchema, type LockFormat, type OwnerInfo, type WaitersSummary } from "@/lib/api";
import { acquiredAtOfValue } from "@redlock-console/redlock";
import type { NodeKeyState } from "../../read/key-state";
import type { ValueCut } from "../../read/read-key";
import type { WaiterRef } from "../../read/waiter-list";

/**
 * Instants are kept as ms after this one: small integers, which V8 stores inside the object, where
 * an epoch ms (beyond 2^31) takes a 16-byte heap box of its own per field. Past ~24 days of uptime
 * they are boxed again: same values, more bytes.
 */
const BASE_MS = Date.now();
const sinceBase = (epochMs: number) => epochMs - BASE_MS;
const fromBase = (offsetMs: number | null) => (offsetMs === null ? null : offsetMs + BASE_MS);

/**
 * What few locks have (a Redisson count, an owner the value does not give, waiters and their
 * entries, a cut value's size and digest), kept apart from the rest.
 */
interface RareFields {
  readonly holdCount: number | null;
  readonly legacyOwner: OwnerInfo | null;
  readonly waiters: WaitersSummary | null;
  readonly cut: ValueCut | null;
  readonly waiterList: readonly WaiterRef[] | null;
  readonly groupCount: number | null;
}

/** What a node holds under a key, with its expiry as an instant on the console's clock. */
export interface IndexedState {
  readonly value: string;
  /** When the key expires (console clock, epoch ms); -1: it has no TTL. */
  readonly expiresAtMs: number;
  readonly format: LockFormat;
  readonly holdCount: number | null;
  /**
   * An owner `value` alone does not give: a 1.x owner entry that belongs to it, or the owner the
   * node decoded from a value it cut (read-key.ts); null otherwise (2.x carries it in the value).
   */
  readonly legacyOwner: OwnerInfo | null;
  /** When the holder acquired (its owner's acquiredAt), for the metrics; null when unknown. */
  readonly acquiredAtMs: number | null;
  /** Live waiters; null when none. */
  readonly waiters: WaitersSummary | null;
  /** The listing generation that last saw the key: older ones are swept when a listing ends. */
  readonly generation: number;
  /** Present when `value` is the first bytes of a longer value: its size and digest. */
  readonly cut: ValueCut | null;
  /** Live waiter entries, each whole (the wait-for graph, contention/); null or absent when none. */
  readonly waiterList?: readonly WaiterRef[] | null;
  /** A semaphore's or read-write lock's count recorded beside a member key (group-count.ts). */
  readonly groupCount?: number | null;
}

/** The formats in the order `#meta` numbers them. */
const FORMATS = lockFormatSchema.options;

/**
 * The store's IndexedState, compact as there is one per lock per node (500,000 at 100k locks on
 * five nodes; 56 bytes each, 104 before): a 2.x owner is decoded from the value only when a row is
 * shown, and its acquiredAt read from the value when asked; the format, the generation and whether
 * the value carries its owner share one small integer; the rare fields share one object, null for
 * most locks.
 */
export class StoredState implements IndexedState {
  readonly value: string;
  /** ((generation × formats) + format) × 2 + 1 when the value carries its owner (an rl1: value). */
  readonly #meta: number;
  /** expiresAtMs after BASE_MS; null: no TTL. */
  readonly #expiresAt: number | null;
  readonly #rare: RareFields | null;

  constructor(read: NodeKeyState, expiresAtMs: number, value: string, generation: number) {
    this.value = value;
    this.#rare = rareFieldsOf(read);
    const ownerInValue = read.owner != null && this.#rare?.legacyOwner == null;
    this.#meta = (generation * FORMATS.length + FORMATS.indexOf(read.format)) * 2 + +ownerInValue;
    this.#expiresAt = expiresAtMs < 0 ? null : sinceBase(expiresAtMs);
  }

  get format(): LockFormat {
    return FORMATS[(this.#meta >> 1) % FORMATS.length]!;
  }

  get generation(): number {
    return Math.floor((this.#meta >> 1) / FORMATS.length);
  }

  get expiresAtMs(): number {
    return fromBase(this.#expiresAt) ?? -1;
  }

  get acquiredAtMs(): number | null {
    if (this.#meta & 1) return acquiredAtOfValue(this.value);
    return this.#rare?.legacyOwner?.acquiredAt ?? null;
  }

  get holdCount(): number | null {
    return this.#rare?.holdCount ?? null;
  }

  get legacyOwner(): OwnerInfo | null {
    return this.#rare?.legacyOwner ?? null;
  }

  get waiters(): WaitersSummary | null {
    return this.#rare?.waiters ?? null;
  }

  get cut(): ValueCut | null {
    return this.#rare?.cut ?? null;
  }

  get waiterList(): readonly WaiterRef[] | null {
    return this.#rare?.waiterList ?? null;
  }

  get groupCount(): number | null {
    return this.#rare?.groupCount ?? null;
  }
}

/** The rare fields of a read; null (no object at all) for the common lock that has none. */
function rareFieldsOf(read: NodeKeyState): RareFields | null {
  const cut = read.cut ?? null;
  const legacyOwner = read.owner && (read.owner.extensions !== null || cut) ? read.owner : null;
  const waiters = read.waiters && read.waiters.count > 0 ? read.waiters : null;
  const waiterList = read.waiterList ?? null;
  const groupCount = read.groupCount ?? null;
  if (
    read.holdCount === null &&
    !legacyOwner &&
    !waiters &&
    !cut &&
    !waiterList &&
    groupCount === null
  )
    return null;
  return { holdCount: read.holdCount, legacyOwner, waiters, cut, waiterList, groupCount };
}
