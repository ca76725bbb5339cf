import "server-only";
/**
 * The manual actions as the HTTP API runs them: each is audited (success or failure; a 409 only in
 * the refusal log) on every reachable node, counted in the metrics, and followed by a latency probe.
 */
import {
  ERROR_STATUS,
  isErrorCode,
  type AcquireRequest,
  type AuditAction,
  type ExtendRequest,
  type LockGrant,
  type ReleaseRequest,
  type ReleaseResponse,
} from "@/lib/api";
import { assertLockAction } from "../auth/authorize";
import { clientIp, userAgent } from "../auth/client-info";
import type { Principal } from "../auth/credentials";
import type { Role } from "../auth/identity";
import { actorFields } from "../auth/actor-fields";
import type { ActionDeps } from "./deps";
import type { LockDeps } from "./lock-actions";
import { CONSOLE_SERVICE, consoleOwnerLabels } from "./console-owner";
import { isApiError } from "../errors";
import { assertWritableKey } from "../locks/read/lock-match";
import { acquireLock, assertNotReserved, extendLock, releaseLock } from "./lock-actions";

export interface Actor {
  readonly principal: Principal;
  readonly clientIp: string;
  readonly userAgent: string;
  /** The incident link the request gave (an http(s) URL), for its audit entries. */
  readonly incident?: string | null;
}

export const actorOf = (
  ctx: Pick<ActionDeps, "config">,
  request: Request,
  principal: Principal,
  incident: string | null = null,
): Actor => ({
  principal,
  clientIp: clientIp(request, ctx.config.trustProxy),
  userAgent: userAgent(request),
  incident,
});

/** An audit record's who-fields: the person, credential, grant, client and incident link. */
export const actorRecord = (actor: Actor, needed: Role) => ({
  ...actorFields(actor.principal, needed),
  clientIp: actor.clientIp,
  userAgent: actor.userAgent,
  incident: actor.incident ?? null,
});

/** What the playground's audited actions use: their lock calls and what they record. */
type AuditedDeps = Pick<
  ActionDeps,
  "redlock" | "registry" | "audit" | "metrics" | "probe" | "config"
>;

/** One manual action: what it is, what it runs, and how its audit entry sums up a success. */
interface AuditedAction<Body extends { resources: string[] }, Result> {
  readonly action: AuditAction & ("acquire" | "extend" | "release");
  /** The value acted on; acquire has none until it succeeds, and then the result's is audited. */
  readonly valueOf: (body: Body) => string | null;
  readonly run: (ctx: AuditedDeps, actor: Actor, body: Body) => Promise<Result>;
  readonly summary: (body: Body, result: Result) => string;
}

/** The action as the API runs it: audited, unless refused first for a reserved resource. */
function audited<Body extends { resources: string[] }, Result>(
  spec: AuditedAction<Body, Result>,
): (ctx: AuditedDeps, actor: Actor, body: Body) => Promise<Result> {
  return async (ctx, actor, body) => {
    assertNotReserved(body.resources); // a bad request: refused before it is audited or probed
    // The console writes only keys it reads as locks (LOCK_MATCH): none it would never list.
    for (const resource of body.resources)
      assertWritableKey(ctx.config.lockMatch, Buffer.from(resource, "utf8"));
    // The playground's locks are held by the console's own service: a grant must cover each one.
    for (const resource of body.resources)
      assertLockAction(actor.principal, spec.action, { resource, service: CONSOLE_SERVICE });
    const record = (outcome: "success" | "failure", detail: string, value = spec.valueOf(body)) =>
      ctx.audit.append({
        action: spec.action,
        ...actorRecord(actor, "operator"),
        resources: body.resources,
        value,
        reason: null,
        outcome,
        detail,
      });
    try {
      const result = await spec.run(ctx, actor, body);
      await record(
        "success",
        spec.summary(body, result),
        (result as { value?: string }).value ?? spec.valueOf(body),
      );
      ctx.metrics.recordAction(spec.action, "success");
      return result;
    } catch (error) {
      // A 409 (held elsewhere, no longer held) took nothing: the refusal log counts it (the
      // route wrapper), so a flood of them cannot evict actions from the trail (issue 49).
      if (!(isApiError(error) && isErrorCode(error.code) && ERROR_STATUS[error.code] === 409))
        await record(
          "failure",
          isApiError(error) ? `${error.code}: ${error.message}` : "internal error",
        );
      ctx.metrics.recordAction(spec.action, isApiError(error) ? error.code : "internal");
      throw error;
    } finally {
      void ctx.probe.runOnce();
    }
  };
}

const deps = (ctx: AuditedDeps): LockDeps => ({ redlock: ctx.redlock, nodes: ctx.registry.nodes });

export const acquireAudited = audited<AcquireRequest, LockGrant>({
  action: "acquire",
  valueOf: () => null,
  run: (ctx, actor, body) => acquireLock(deps(ctx), body, consoleOwnerLabels(actor.principal)),
  summary: (body, lock) =>
    `acquired for ${body.ttlMs} ms, validity ${lock.validityMs} ms${lock.fencingToken === null ? "" : `, fencing token ${lock.fencingToken}`}`,
});

export const extendAudited = audited<ExtendRequest, LockGrant>({
  action: "extend",
  valueOf: (body) => body.value,
  run: (ctx, _actor, body) => extendLock(deps(ctx), body),
  summary: (body, lock) => `extended to ${body.ttlMs} ms, validity ${lock.validityMs} ms`,
});

export const releaseAudited = audited<ReleaseRequest, Omit<ReleaseResponse, "serverTime">>({
  action: "release",
  valueOf: (body) => body.value,
  run: (ctx, _actor, body) => releaseLock(deps(ctx), body),
  summary: (_body, result) => `released on ${result.releasedCount} node(s)`,
});
