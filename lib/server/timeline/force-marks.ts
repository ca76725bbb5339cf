import "server-only";
/**
 * The force-releases this console makes, one mark per resource, kept until the hold they end is
 * folded or FORCE_MARK_TTL_MS passes: what lets the timeline tell that end as "force-released by …"
 * rather than as a release. A mark explains only the values its write removed (issue 32 row 11);
 * how a mark meets a hold's end is a rule of hold-fold.ts (`marks`), tested as a table.
 */
import type { ForceMark } from "./hold-fold";

/** A mark or a settle, as replicas share them (lib/server/replicas/force-mark-share.ts). */
export type ForceMarkEvent =
  | {
      readonly op: "mark";
      readonly resource: string;
      readonly by: string;
      readonly reason: string | null;
      readonly value: string | null;
      readonly auditId: string | null;
      readonly atMs: number;
    }
  | { readonly op: "settle"; readonly resource: string; readonly values: readonly string[] };

/** A force-release mark is matched to a disappearing value within this long. */
const FORCE_MARK_TTL_MS = 30_000;

export class ForceMarks {
  readonly #marks = new Map<string, ForceMark>();

  /** The mark on `resource`, while one is kept. */
  get(resource: string): ForceMark | undefined {
    return this.#marks.get(resource);
  }

  /**
   * A force-release by `by` is about to delete or tombstone `resource`: of `value`, or (null:
   * force: any) of whatever a node holds while the write is under way.
   */
  mark(
    resource: string,
    by: string,
    reason: string | null,
    value: string | null,
    auditId: string | null,
    nowMs: number,
  ): void {
    const values = value === null ? null : [value];
    this.#marks.set(resource, { by, reason, atMs: nowMs, values, auditId });
  }

  /**
   * The force-release of `resource` answered: it removed `values` (deleted or replaced by its
   * tombstone). The mark then explains the end of those values only, and is dropped when it removed
   * nothing: a force-release of an absent key never claims a later, unrelated hold.
   */
  settle(resource: string, values: readonly string[]): void {
    const mark = this.#marks.get(resource);
    if (!mark) return;
    if (values.length === 0) this.#marks.delete(resource);
    else this.#marks.set(resource, { ...mark, values: [...new Set(values)] });
  }

  /** The mark on `resource` explained a hold's end: it explains no other. */
  spend(resource: string): void {
    this.#marks.delete(resource);
  }

  /** Drops the marks no hold's end met in time. */
  prune(nowMs: number): void {
    for (const [resource, mark] of this.#marks)
      if (nowMs - mark.atMs > FORCE_MARK_TTL_MS) this.#marks.delete(resource);
  }
}
