import { deleteNowLabel } from "./dialog-actions";

/**
 * The explicit delete-now (issue 39 item 1): its own section and button, never the form's default
 * and never preselected, its label saying until when two processes may act as holders. The only
 * way to release a Redisson hash lock and to lift a standing tombstone. Admin-only like every
 * destructive action (the dialog is shown to admins only).
 */
export function DeleteNowControl({
  words,
  untilMs,
  onlyWay,
  disabled,
  pending,
  onDelete,
}: {
  /** The rule's words for delete-now (`unlockDecision(…, deleteNow: true).words`). */
  words: string;
  /** When the validity it removes ends (epoch ms); null without a TTL. */
  untilMs: number | null;
  /** Force release alone would be refused or write nothing: say this is the way on. */
  onlyWay: string | null;
  disabled: boolean;
  pending: boolean;
  onDelete: () => void;
}) {
  return (
    <section className="stack" aria-label="Delete now">
      <p>
        <strong>Explicit delete (admin), instead of a tombstone:</strong>{" "}
        {onlyWay ? `${onlyWay} ` : ""}
        {words}.
      </p>
      <p>
        <button type="button" className="danger" disabled={disabled || pending} onClick={onDelete}>
          {pending ? "Deleting…" : deleteNowLabel(untilMs)}
        </button>
      </p>
    </section>
  );
}
