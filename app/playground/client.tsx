"use client";

import Link from "next/link";
import { permissionOf } from "../_queries/permissions";
import { useSession } from "../_queries/session";
import { AcquireForm } from "./acquire-form";
import { HeldLockPanel } from "./held-lock-panel";
import { OperationResult } from "./operation-result";
import { usePlayground } from "./use-playground";

function WriteAccessNotice() {
  const { data: session } = useSession();
  const acquiring = permissionOf(session, "acquire", null);
  if (!session || acquiring.allowed) return null;
  if (session.readOnly)
    return (
      <p className="notice notice-warn">
        The console is read-only: the playground cannot change locks.
      </p>
    );
  if (session.canWrite) return <p className="notice notice-info">{acquiring.reason}</p>;
  return (
    <p className="notice notice-info">
      Acquire, extend and release need you to sign in.{" "}
      <Link href="/login?next=%2Fplayground">Sign in</Link>
    </p>
  );
}

export function PlaygroundClient() {
  const { data: session } = useSession();
  const playground = usePlayground();
  // The scope of each resource is the server's to check (a 403 names what was missing).
  const disabled = !permissionOf(session, "acquire", null).allowed || playground.pending;
  return (
    <div className="stack">
      <h1>Playground</h1>
      <p className="muted">
        Take a real lock on the configured nodes, then extend or release it, and see how each node
        voted.
      </p>
      <WriteAccessNotice />
      <div className="playground-grid">
        <section className="card" aria-labelledby="acquire-heading">
          <h2 id="acquire-heading" style={{ marginTop: 0 }}>
            Acquire
          </h2>
          <AcquireForm disabled={disabled} onAcquire={playground.acquire} />
        </section>
        <div className="stack">
          {playground.held && (
            <HeldLockPanel
              key={playground.held.value}
              lock={playground.held}
              disabled={disabled}
              onExtend={playground.extend}
              onRelease={playground.release}
            />
          )}
          {playground.record && <OperationResult record={playground.record} />}
        </div>
      </div>
    </div>
  );
}
