"use client";

import { useEffect, useRef } from "react";
import { CopyableCommand } from "@/components/ui/copyable-command";
import { ErrorNotice } from "@/components/ui/error-notice";
import type { KeyspaceEventsResponse, NodeInfo } from "@/lib/api";
import { useKeyspaceEventsPreview, useTurnOnKeyspaceEvents } from "../_queries/node-actions";
import { keyspaceEventsCost } from "./keyspace-events-cost";
import styles from "./keyspace-events-dialog.module.css";

/** The flags a preview or a change adds: what `to` has beyond `from`. */
const added = (answer: KeyspaceEventsResponse) =>
  answer.from !== null && answer.to !== null ? answer.to.slice(answer.from.length) : "";

/** What confirming will do, exactly: the command, the flags it adds, what follows, the cost. */
function WhatItDoes({ node, preview }: { node: NodeInfo; preview: KeyspaceEventsResponse }) {
  if (preview.outcome === "already")
    return (
      <p>
        {node.id} already publishes every event the console needs (
        <code>notify-keyspace-events &quot;{preview.from}&quot;</code>): confirming changes nothing
        on it and only makes the console relist it with a subscriber, leaving polling.
      </p>
    );
  return (
    <>
      <p>The console runs on {node.id}:</p>
      <CopyableCommand command={preview.command ?? ""} label="command the console runs" />
      <p>
        It has <code>&quot;{preview.from}&quot;</code> now: only{" "}
        <code>{[...added(preview)].join(" ")}</code> are added, none removed. Then the console
        relists {node.id} with a subscriber and stops polling it. The change is audited and stays
        after the console stops (unless CONSOLE_RESTORE_KEYSPACE_EVENTS is on).
      </p>
      <p className="notice notice-info">{keyspaceEventsCost(node.id, node.writeRate)}</p>
    </>
  );
}

/** After confirming: done (the card says watching once relisted), or refused with the command. */
function Outcome({ node, result }: { node: NodeInfo; result: KeyspaceEventsResponse }) {
  if (result.outcome !== "refused")
    return (
      <p role="status" className="notice notice-ok">
        Done: {node.id}&apos;s notify-keyspace-events is now <code>&quot;{result.to}&quot;</code>{" "}
        (was <code>&quot;{result.from}&quot;</code>). The console is relisting it with a subscriber:
        its card says watching within seconds.
      </p>
    );
  return (
    <div role="alert" className="notice notice-error">
      <p>
        {node.id} refused CONFIG SET ({result.error}). Run this in redis-cli on {node.id} as a user
        allowed to, or allow the console&apos;s user <code>+config|set</code>:
      </p>
      {result.command ? (
        <CopyableCommand command={result.command} label="command to run on the node" />
      ) : (
        <p>
          <code>CONFIG GET notify-keyspace-events</code>, then <code>CONFIG SET</code> it to those
          flags plus any of <code>Kg$hzxe</code> they lack.
        </p>
      )}
    </div>
  );
}

/** Confirmation of the node card's action: reads what it would run first, then runs it. */
export function KeyspaceEventsDialog({ node, onClose }: { node: NodeInfo; onClose: () => void }) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const preview = useKeyspaceEventsPreview(node.id);
  const turnOn = useTurnOnKeyspaceEvents(node.id);
  const { mutate: readPreview } = preview;

  useEffect(() => {
    dialogRef.current?.showModal();
    readPreview();
  }, [readPreview]);

  const result = turnOn.data ?? null;
  const readRefused = preview.data?.outcome === "refused" ? preview.data : null;
  const canConfirm = preview.data && !readRefused && !result;
  return (
    <dialog
      ref={dialogRef}
      className={styles.dialog}
      aria-labelledby="keyspace-events-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="keyspace-events-title">Turn on keyspace events on {node.id}</h2>
      {preview.isPending && (
        <p className="muted">Reading {node.id}&apos;s notify-keyspace-events…</p>
      )}
      {preview.error && <ErrorNotice error={preview.error} title="Could not read the node" />}
      {readRefused && <Outcome node={node} result={readRefused} />}
      {preview.data && !readRefused && !result && <WhatItDoes node={node} preview={preview.data} />}
      {result && <Outcome node={node} result={result} />}
      {turnOn.error && <ErrorNotice error={turnOn.error} title="Nothing was changed" />}
      <div className={styles.actions}>
        <button type="button" onClick={onClose}>
          {canConfirm ? "Cancel" : "Close"}
        </button>
        {canConfirm && (
          <button
            type="button"
            className="primary"
            disabled={turnOn.isPending}
            onClick={() => turnOn.mutate()}
          >
            {turnOn.isPending ? "Turning on…" : "Turn on keyspace events"}
          </button>
        )}
      </div>
    </dialog>
  );
}
