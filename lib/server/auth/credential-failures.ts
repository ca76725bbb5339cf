import "server-only";
/**
 * Wrong credentials (login form and bearer tokens alike): throttled per client, and each one leaves
 * a log line, a metric and a count in the refusal log (audit/refusal-log.ts), summed per client
 * and flushed as one entry per window. They never go to the actions trail: a guessing script from
 * many addresses fills only the refusal log's own bounded stream, never evicting actions (issue 49).
 */
import type { RefusalLog } from "../audit/refusal-log";
import { ApiError } from "../errors";
import { logger } from "../logger";
import type { ConsoleMetrics } from "../metrics";
import { clientIp, userAgent } from "./client-info";
import { createFailureLimiter, type FailureLimiter } from "./rate-limit";
import { noteRecorded } from "./request-refusals";

export type CredentialKind = "login" | "bearer";

export interface CredentialFailures {
  /** Throws 429 while the request's client is blocked; call before checking a credential. */
  assertAllowed(request: Request): void;
  /** Records a wrong credential (limiter, log, metric, refusal log). */
  record(request: Request, kind: CredentialKind): void;
  /** A right credential: the client's failures are forgotten. */
  succeeded(request: Request): void;
}

export function createCredentialFailures(
  refusals: Pick<RefusalLog, "record">,
  metrics: ConsoleMetrics,
  trustProxy: boolean,
  limiter: FailureLimiter = createFailureLimiter(),
): CredentialFailures {
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
      limiter.recordFailure(client);
      metrics.recordAuthFailure(kind);
      logger.warn({ client, kind }, "wrong admin credential");
      noteRecorded(request);
      refusals.record({
        action: "auth-failure",
        code: "unauthorized",
        status: 401,
        actor: "anonymous",
        person: null,
        credential: null,
        tokenName: null,
        clientIp: client,
        userAgent: userAgent(request),
        resources: [],
        detail: `wrong credential (${kind})`,
      });
    },
    succeeded(request) {
      limiter.reset(clientIp(request, trustProxy));
    },
  };
}
