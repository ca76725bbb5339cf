import type Redlock from "@redlock-console/redlock";
import type { AuditTrail } from "../audit/audit-trail";
import type { ConsoleConfig } from "../config";
import type { LiveIndex } from "../locks/rows/live-index";
import type { ConsoleMetrics } from "../metrics";
import type { ConsoleNode, NodeRegistry } from "../node-registry";
import type { Probe } from "../latency/probe";
import type { SessionHoldings } from "../sessions/session-holdings";
import type { Timeline } from "../timeline/timeline";

/**
 * What the actions use of the console, member by member and each narrowed to the calls made on it.
 * An action takes `Pick<ActionDeps, …>` of the members it reads, so its signature says what it
 * touches; the console (console.ts) satisfies all of it by shape and is passed as is.
 */
export interface ActionDeps {
  readonly config: Pick<ConsoleConfig, "trustProxy" | "lockMatch">;
  readonly registry: Pick<NodeRegistry, "nodes" | "quorumSize">;
  /** The console's own Redlock: the playground's locks, and the drift factor of the unlock rule. */
  readonly redlock: Redlock;
  /** Budget of a multi-command read of one node, in ms. */
  readonly nodeDeadlineMs: number;
  /** The node has a lock command overdue now: skip it instead of waiting another timeout. */
  isHung(node: ConsoleNode): boolean;
  readonly audit: Pick<AuditTrail, "append">;
  readonly metrics: Pick<ConsoleMetrics, "recordAction" | "recordForceRelease">;
  readonly probe: Pick<Probe, "runOnce">;
  readonly timeline: Pick<Timeline, "markForceRelease" | "settleForceRelease">;
  readonly index: LiveIndex;
  /** A whole session's locks (release-session.ts), kept by the index's handler. */
  readonly sessionHoldings: Pick<SessionHoldings, "caughtUp" | "holdingsOf">;
}

/** The nodes an action writes to, and how long it waits for each. */
export type NodeDeps = Pick<ActionDeps, "registry" | "nodeDeadlineMs" | "isHung">;

/** What an audited action leaves behind: its audit entries, its metric, a latency probe after it. */
export type RecordDeps = Pick<ActionDeps, "audit" | "metrics" | "probe">;

/** What a follow-up uses: the nodes it reads again, and the audit entry it adds. */
export type FollowUpDeps = Pick<ActionDeps, "registry" | "nodeDeadlineMs" | "audit">;
