import "server-only";
/**
 * The break-glass admin token (CONSOLE_ADMIN_TOKEN): still accepted, because the identity provider
 * may be what is down, but never quietly. Every request it authenticates is counted
 * (redlock_console_break_glass_uses_total, alert RedlockBreakGlassUsed); every state-changing action
 * is audited under its actor "break-glass (…)", its sign-in too; reads with the bearer token are
 * audited once per client per 10 minutes (a dashboard polling with it would otherwise fill the
 * trail); and the latest use is kept a day on the nodes, so admins on any replica see it in a banner.
 */
import { RESERVED_PREFIX } from "@/lib/api";
import type { AuditTrail } from "../audit/audit-trail";
import { logger } from "../logger";
import type { ConsoleMetrics } from "../metrics";
import { withDeadline, type ConsoleNode } from "../node-registry";
import { clientIp, userAgent } from "./client-info";
import type { Principal } from "./identity";

const LAST_USE_KEY = `${RESERVED_PREFIX}console:break-glass:last-use`;
const LAST_USE_KEEP_MS = 86_400_000;
/** One write of the latest use per replica per this long: enough for a banner, cheap per request. */
const LAST_USE_WRITE_EVERY_MS = 10_000;
const READ_AUDIT_EVERY_MS = 600_000;
const MAX_CLIENTS_REMEMBERED = 1_000;

export interface BreakGlassUse {
  readonly at: number;
  /** The actor, e.g. "break-glass (token)". */
  readonly label: string;
}

export interface BreakGlass {
  /** Records one request authenticated with the admin token. */
  used(principal: Principal, request: Request): void;
  /** The latest use on any replica within a day; null when none (or no node answers). */
  lastUse(): Promise<BreakGlassUse | null>;
}

export interface BreakGlassDeps {
  readonly nodes: readonly ConsoleNode[];
  readonly deadlineMs: number;
  readonly metrics: Pick<ConsoleMetrics, "recordBreakGlassUse">;
  readonly audit: Pick<AuditTrail, "append">;
  readonly trustProxy: boolean;
}

export function createBreakGlass(deps: BreakGlassDeps): BreakGlass {
  let lastWriteAt = 0;
  const readsAuditedAt = new Map<string, number>();

  function keepLastUse(use: BreakGlassUse): void {
    if (use.at - lastWriteAt < LAST_USE_WRITE_EVERY_MS) return;
    lastWriteAt = use.at;
    const value = JSON.stringify(use);
    for (const node of deps.nodes) {
      void withDeadline(
        node.client.set(LAST_USE_KEY, value, "PX", LAST_USE_KEEP_MS),
        deps.deadlineMs,
      ).catch(() => undefined);
    }
  }

  function auditRead(principal: Principal, request: Request, nowMs: number): void {
    const client = clientIp(request, deps.trustProxy);
    if (nowMs - (readsAuditedAt.get(client) ?? 0) < READ_AUDIT_EVERY_MS) return;
    if (readsAuditedAt.size >= MAX_CLIENTS_REMEMBERED) readsAuditedAt.clear();
    readsAuditedAt.set(client, nowMs);
    void deps.audit
      .append({
        action: "break-glass",
        actor: principal.label,
        clientIp: client,
        userAgent: userAgent(request),
        resources: [],
        value: null,
        reason: null,
        outcome: "success",
        detail: `break-glass admin token used for reads (${new URL(request.url).pathname}); audited once per client per 10 minutes`,
      })
      .catch((error: unknown) => logger.warn({ error: String(error) }, "break-glass audit failed"));
  }

  return {
    used(principal, request) {
      const nowMs = Date.now();
      const isRead = request.method === "GET" || request.method === "HEAD";
      deps.metrics.recordBreakGlassUse(principal.carrier);
      keepLastUse({ at: nowMs, label: principal.label });
      if (isRead && principal.carrier === "bearer") auditRead(principal, request, nowMs);
    },
    async lastUse() {
      const replies = await Promise.all(
        deps.nodes.map((node) =>
          withDeadline(node.client.get(LAST_USE_KEY), deps.deadlineMs).catch(() => null),
        ),
      );
      let latest: BreakGlassUse | null = null;
      for (const reply of replies) {
        try {
          const use = reply ? (JSON.parse(reply) as BreakGlassUse) : null;
          if (use && typeof use.at === "number" && (!latest || use.at > latest.at)) latest = use;
        } catch {
          // A value this console did not write: ignored.
        }
      }
      return latest;
    },
  };
}
