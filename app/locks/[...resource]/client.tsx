"use client";

import { OwnerExtension } from "@/components/locks/owner-extension";
import Link from "next/link";
import { AuditTable } from "@/components/locks/audit-table";
import { ElapsedSince } from "@/components/locks/held-for";
import { HolderValue } from "@/components/locks/holder-value";
import { LockFlags } from "@/components/locks/lock-flags";
import { LockOwnerLabel, OwnerLabels, ReleasingHolderLabel } from "@/components/locks/lock-owner";
import { LockStateBadge } from "@/components/locks/state-badge";
import { LockValidity } from "@/components/locks/validity-countdown";
import { ErrorNotice } from "@/components/ui/error-notice";
import { formatTimestamp } from "@/components/ui/format";
import type { HolderSession, LockDetail } from "@/lib/api";
import { expiresAtMs } from "@/lib/api";
import { HistoryHorizonNotice } from "@/components/locks/history-horizon";
import { HoldTimeline } from "@/components/locks/hold-timeline";
import { OverlapNotice } from "@/components/locks/overlap-notice";
import { LockTransitions } from "@/components/locks/lock-transitions";
import { useAudit } from "../../_queries/audit";
import { useTransitions } from "../../_queries/events";
import { useLock } from "../../_queries/lock";
import { useNodes } from "../../_queries/nodes";
import { ForceReleaseSection } from "./force-release-section";
import { GroupMembers } from "./group-members";
import { HolderSessionRows } from "./holder-session-rows";
import { NodeHoldersTable } from "./node-holders-table";
import { useMaxSeen } from "./use-max-seen";
import { LockChain } from "./lock-chain";
import { WaitersTable } from "./waiters-table";
import styles from "./lock-detail.module.css";

interface LockSummaryProps {
  lock: LockDetail;
  /** The holder's session (of a tombstone: of the holder it replaced). */
  holderSession: HolderSession | null;
  /** The latest token recorded for the resource (highest counter among the nodes). */
  fencingToken: number | null;
  serverTimeMs: number;
}

function LockSummary({ lock, holderSession, fencingToken, serverTimeMs }: LockSummaryProps) {
  return (
    <dl className={styles.summary}>
      <dt>State</dt>
      <dd>
        <LockStateBadge state={lock.state} /> <LockFlags flags={lock.flags} />
      </dd>
      <dt>Owner</dt>
      <dd>
        {lock.owner.kind === "labelled" ? (
          <OwnerLabels labels={lock.owner.labels} truncated={lock.owner.truncatedLabels} />
        ) : lock.state === "releasing" ? (
          // A tombstone carries the replaced holder's session, not its labels: its heartbeat's.
          <ReleasingHolderLabel labels={holderSession?.labels ?? null} />
        ) : (
          <LockOwnerLabel owner={lock.owner} />
        )}
      </dd>
      {holderSession && <HolderSessionRows holderSession={holderSession} />}
      <dt>Held for</dt>
      <dd>
        <ElapsedSince sinceMs={lock.heldSince} label="held for" />
        {lock.heldSince !== null && (
          <span className="muted"> since {formatTimestamp(lock.heldSince)}</span>
        )}
        {lock.owner.kind === "labelled" && <OwnerExtension owner={lock.owner} prefix=" · " />}
      </dd>
      <dt>Waiters</dt>
      <dd>
        {lock.waiters.count}
        {lock.waiters.oldestSince !== null && (
          <span className="muted">
            {" "}
            · oldest waiting <ElapsedSince sinceMs={lock.waiters.oldestSince} label="oldest wait" />
          </span>
        )}
      </dd>
      <dt>Quorum</dt>
      <dd>
        {lock.quorum}/{lock.nodes.length} nodes (needs {lock.quorumSize})
      </dd>
      <dt>Validity</dt>
      <dd>
        <LockValidity validUntilMs={expiresAtMs(lock.validityMs, serverTimeMs)} />
      </dd>
      <dt>Holder value</dt>
      <dd>
        <HolderValue value={lock.value} />
      </dd>
      <dt>Fencing token</dt>
      <dd>
        {fencingToken === null ? (
          <span className="muted">none recorded</span>
        ) : (
          <>
            {/* The counter outlives holders: a holder that skipped fencing did not raise it. */}
            <span>{fencingToken}</span> <span className="muted">(latest recorded)</span>
          </>
        )}
      </dd>
      <dt>Format</dt>
      <dd>
        {lock.format === "redisson-hash"
          ? "Redisson hash"
          : lock.format === "tombstone"
            ? "force-release tombstone"
            : lock.format === "redis-semaphore"
              ? `redis-semaphore (read-only): ${lock.semaphore?.used ?? 0} live holders, limit not stored`
              : "string (Redlock)"}
      </dd>
    </dl>
  );
}

/**
 * The key's bytes as base64 when the page was opened by them (`?key=`) and they are not valid
 * UTF-8: such a key's transitions are told apart by their bytes, not by their (lossy) name.
 */
function nonUtf8Base64(keyBase64Url: string | undefined): string | undefined {
  if (keyBase64Url === undefined) return undefined;
  const base64 = keyBase64Url.replaceAll("-", "+").replaceAll("_", "/");
  const padded = base64.padEnd(Math.ceil(base64.length / 4) * 4, "=");
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return undefined;
  } catch {
    return padded;
  }
}

/** What has been happening to this lock: its holds over the last hour, then every transition, live. */
function ResourceTimeline({ resource, keyBase64Url }: { resource: string; keyBase64Url?: string }) {
  const resourceBase64 = nonUtf8Base64(keyBase64Url);
  const { data, error } = useTransitions(
    resourceBase64 !== undefined ? { resourceBase64 } : { resource },
    500,
  );
  return (
    <section aria-labelledby="lock-timeline-heading">
      <h2 id="lock-timeline-heading">Timeline</h2>
      {error && <ErrorNotice error={error} title="History unavailable" />}
      {data && (
        <>
          <OverlapNotice transitions={data.transitions} />
          <HoldTimeline transitions={data.transitions} />
          <HistoryHorizonNotice horizon={data.horizon} />
          {data.transitions.length === 0 ? (
            <p className="muted">No transition of this lock since the history began.</p>
          ) : (
            <LockTransitions transitions={data.transitions} />
          )}
        </>
      )}
    </section>
  );
}

function ResourceAudit({ resource }: { resource: string }) {
  const audit = useAudit(1_000);
  const entries = audit.data?.entries.filter((entry) => entry.resources.includes(resource)) ?? [];
  return (
    <section aria-labelledby="lock-audit-heading">
      <h2 id="lock-audit-heading">Audit entries for this resource</h2>
      {audit.error && <ErrorNotice error={audit.error} title="Audit trail unavailable" />}
      {audit.data && entries.length === 0 && (
        <p className="muted">No action on this resource is recorded.</p>
      )}
      {entries.length > 0 && (
        <AuditTable entries={entries} label="Audit entries for this resource" />
      )}
    </section>
  );
}

/** `keyBase64Url`: set when the page was opened by the key's bytes (`?key=`), see resource-key.ts. */
export function LockDetailClient({
  resource,
  keyBase64Url,
}: {
  resource: string;
  keyBase64Url?: string;
}) {
  const { data, error } = useLock(resource, keyBase64Url);
  const nodes = useNodes();
  const lock = data?.lock ?? null;
  const longestPttlMs = Math.max(0, ...(lock?.nodes.map((holder) => holder.pttlMs ?? 0) ?? []));
  const scaleMs = useMaxSeen(lock?.value ?? null, longestPttlMs);

  return (
    <>
      <p>
        <Link href="/">← All locks</Link>
      </p>
      <h1 className={styles.title}>{resource}</h1>
      {lock?.format === "redis-semaphore" ? (
        <p className="notice notice-info">
          redis-semaphore (read-only): the console reads this semaphore&apos;s holders but cannot
          force-release or revoke them. Release them from the application that holds them.
        </p>
      ) : (
        <ForceReleaseSection lock={lock} holderSession={data?.holderSession ?? null} />
      )}
      {error && <ErrorNotice error={error} title="This lock could not be read" />}
      {data?.group && <GroupMembers group={data.group} />}
      {data && !lock && !data.group && (
        <p className="notice notice-info">
          No node holds this resource now: it is free.
          {data.fencingToken !== null &&
            ` The last fencing token recorded for it is ${data.fencingToken}.`}
        </p>
      )}
      {data && data.unreachableNodes.length > 0 && (
        <p className="notice notice-warn">
          {data.unreachableNodes.join(", ")} did not answer: their state is unknown.
        </p>
      )}
      {data?.index.missedLock && (
        <p className="notice notice-warn" role="status">
          {data.index.note}
        </p>
      )}
      {data && lock && (
        <div className={styles.layout}>
          <section className="card" aria-label="Summary">
            <LockSummary
              lock={lock}
              holderSession={data.holderSession}
              fencingToken={data.fencingToken}
              serverTimeMs={data.serverTime}
            />
          </section>
          <section className="card" aria-labelledby="per-node-heading">
            <h2 id="per-node-heading">On each node</h2>
            <NodeHoldersTable
              holders={lock.nodes}
              nodes={nodes.data?.nodes}
              majorityValue={lock.value}
              serverTimeMs={data.serverTime}
              scaleMs={scaleMs}
            />
          </section>
        </div>
      )}
      {data && lock && (
        <section aria-labelledby="waiters-heading">
          <h2 id="waiters-heading">Waiting for this lock</h2>
          {lock.waiterList.length === 0 ? (
            <p className="muted">No contender is waiting.</p>
          ) : (
            <WaitersTable waiters={lock.waiterList} nodeCount={lock.nodes.length} />
          )}
        </section>
      )}
      {data && lock && <LockChain resource={resource} />}
      {data?.group && !data.group.readOnly ? (
        // Its name is no key: the history is each member's, kept under that member's key.
        <section aria-labelledby="lock-timeline-heading">
          <h2 id="lock-timeline-heading">Timeline</h2>
          <p className="muted">
            The history is kept per{" "}
            {data.group.kind === "semaphore" ? "permit" : "writer and reader slot"}: open one from
            the table above for its holds and transitions.
          </p>
        </section>
      ) : (
        <ResourceTimeline resource={resource} keyBase64Url={keyBase64Url} />
      )}
      <ResourceAudit resource={resource} />
    </>
  );
}
