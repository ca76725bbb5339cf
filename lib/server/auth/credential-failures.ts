import "server-only";
/**
 * Wrong credentials (login form and bearer tokens alike): throttled per client, and each one leaves
 * a log line and a metric. The audit trail gets the first failure of each client per limiter
 * window, and at most AUDITED_PER_MINUTE in all, so a guessing script cannot flood the stream
 * (the log line and the counter still count every try).
 */
import type { AuditTrail } from "../audit/audit-trail";
import { ApiError } from "../errors";
import { logger } from "../logger";
import type { ConsoleMetrics } from "../metrics";
import { clientIp, userAgent } from "./client-info";
import { createFailureLimiter, type FailureLimiter } from "./rate-limit";

export type CredentialKind = "login" | "bearer";

const AUDITED_PER_MINUTE = 30;

export interface CredentialFailures {
  /** Throws 429 while the request's client is blocked; call before checking a credential. */
  assertAllowed(request: Request): void;
  /** Records a wrong credential (limiter, log, metric, rate-limited audit entry). */
  record(request: Request, kind: CredentialKind): void;
  /** A right credential: the client's failures are forgotten. */
  succeeded(request: Request): void;
}

export function createCredentialFailures(
  audit: AuditTrail,
  metrics: ConsoleMetrics,
  trustProxy: boolean,
  limiter: FailureLimiter = createFailureLimiter(),
): CredentialFailures {
  let auditedAtMs: number[] = [];
  const mayAudit = (now: number) => {
    auditedAtMs = auditedAtMs.filter((at) => now - at < 60_000);
    if (auditedAtMs.length >= AUDITED_PER_MINUTE) return false;
    auditedAtMs.push(now);
    return true;
  };
  return {
    assertAllowed(request) {
      const waitMs = limiter.retryAfterMs(clientIp(request, trustProxy));
      if (waitMs <= 0) return;
      const retryAfterS = Math.ceil(waitMs / 1000);
      throw new ApiError(
        "rate_limited",
        `Too many wrong credentials from this client: retry in ${retryAfterS} s.`,
        { headers: { "retry-after": String(retryAfterS) } },
      );
    },
    record(request, kind) {
      const client = clientIp(request, trustProxy);
      const firstInWindow = limiter.recordFailure(client);
      metrics.recordAuthFailure(kind);
      logger.warn({ client, kind }, "wrong admin credential");
      if (!firstInWindow || !mayAudit(Date.now())) return;
      void audit.append({
        action: "auth-failure",
        actor: "anonymous",
        clientIp: client,
        userAgent: userAgent(request),
        resources: [],
        value: null,
        reason: null,
        outcome: "failure",
        detail: `wrong admin token (${kind}); this client's further failures in the next minute are logged and counted, not audited`,
      });
    },
    succeeded(request) {
      limiter.reset(clientIp(request, trustProxy));
    },
  };
}
