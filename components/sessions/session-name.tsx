import Link from "next/link";
import { labelsText, ownerHeadline } from "@/components/locks/lock-owner";

/** A holder session as an operator recognises it: its headline labels, linking to its page, and its id. */
export function SessionName({ id, labels }: { id: string; labels: Record<string, string> }) {
  return (
    <>
      <Link href={`/sessions/${id}`} title={labelsText(labels)}>
        {ownerHeadline(labels)}
      </Link>
      <div className="muted">
        <code title={id}>{id.slice(0, 8)}</code>
      </div>
    </>
  );
}
