"use client";

import Link from "next/link";
import { useState } from "react";
import type { NodeInfo } from "@/lib/api";
import { permissionOf } from "../_queries/permissions";
import { useSession } from "../_queries/session";
import { keyspaceEventsCost } from "./keyspace-events-cost";
import { KeyspaceEventsDialog } from "./keyspace-events-dialog";

/**
 * On a polled single server's card: what keyspace events would cost it, and the admin's action to
 * turn them on (everyone else is told why it is not offered). The dialog outlives polling mode, so
 * its outcome stays on screen while the card turns to watching.
 */
export function KeyspaceEventsAction({ node }: { node: NodeInfo }) {
  const { data: session } = useSession();
  const [open, setOpen] = useState(false);
  const polled = node.kind === "single" && node.index.mode === "polling";
  if (!polled && !open) return null;
  const admin = permissionOf(session, "node-admin", null);
  const offer = session?.readOnly ? (
    <p className="muted">Turning on keyspace events is off: the console is read-only.</p>
  ) : !session?.canWrite ? (
    <p className="muted">
      <Link href="/login">Sign in as an admin</Link> to turn on keyspace events on {node.id}.
    </p>
  ) : !admin.allowed ? (
    <p className="muted">{admin.reason}</p>
  ) : (
    <button type="button" onClick={() => setOpen(true)}>
      Turn on keyspace events on {node.id}…
    </button>
  );
  return (
    <div className="keyspace-events-action" data-testid="keyspace-events-action">
      {polled && <p className="muted">{keyspaceEventsCost(node.id, node.writeRate)}</p>}
      {polled && offer}
      {open && <KeyspaceEventsDialog node={node} onClose={() => setOpen(false)} />}
    </div>
  );
}
