"use client";

import Link from "next/link";
import { useSession } from "../_queries/session";
import { AcquireForm } from "./acquire-form";
import { HeldLockPanel } from "./held-lock-panel";
import { OperationResult } from "./operation-result";
import { usePlayground } from "./use-playground";

function WriteAccessNotice() {
  const { data: session } = useSession();
  if (!session || session.canWrite) return null;
  if (session.readOnly)
    return (
      <p className="notice notice-warn">
        The console is read-only: the playground cannot change locks.
      </p>
    );
  return (
    <p className="notice notice-info">
      Acquire, extend and release need the admin credential.{" "}
      <Link href="/login?next=%2Fplayground">Log in</Link>
    </p>
  );
}

export function PlaygroundClient() {
  const { data: session } = useSession();
  const playground = usePlayground();
  const disabled = !session?.canWrite || playground.pending;
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
