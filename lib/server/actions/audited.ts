import "server-only";
/**
 * The manual actions as the HTTP API runs them: each is audited (success or failure) on every
 * reachable node, counted in the metrics, and followed by a latency probe.
 */
import type {
  AcquireRequest,
  AuditAction,
  ExtendRequest,
  LockGrant,
  ReleaseRequest,
  ReleaseResponse,
} from "@/lib/api";
import { clientIp, userAgent } from "../auth/client-info";
import type { Principal } from "../auth/credentials";
import type { ConsoleContext } from "../console";
import { consoleOwnerLabels } from "./console-owner";
import { isApiError } from "../errors";
import { acquireLock, assertNotReserved, extendLock, releaseLock } from "./lock-actions";

export interface Actor {
  readonly principal: Principal;
  readonly clientIp: string;
  readonly userAgent: string;
}

export const actorOf = (ctx: ConsoleContext, request: Request, principal: Principal): Actor => ({
  principal,
  clientIp: clientIp(request, ctx.config.trustProxy),
  userAgent: userAgent(request),
});

interface ActionMeta {
  readonly action: AuditAction;
  readonly resources: string[];
  readonly value: string | null;
  readonly reason?: string;
}

async function audited<T>(
  ctx: ConsoleContext,
  actor: Actor,
  meta: ActionMeta,
  run: () => Promise<T>,
  summary: (result: T) => string,
): Promise<T> {
  const record = (outcome: "success" | "failure", detail: string, value = meta.value) =>
    ctx.audit.append({
      action: meta.action,
      actor: actor.principal.label,
      clientIp: actor.clientIp,
      userAgent: actor.userAgent,
      resources: meta.resources,
      value,
      reason: meta.reason ?? null,
      outcome,
      detail,
    });
  try {
    const result = await run();
    await record("success", summary(result), (result as { value?: string }).value ?? meta.value);
    ctx.metrics.recordAction(meta.action, "success");
    return result;
  } catch (error) {
    await record(
      "failure",
      isApiError(error) ? `${error.code}: ${error.message}` : "internal error",
    );
    ctx.metrics.recordAction(meta.action, isApiError(error) ? error.code : "internal");
    throw error;
  } finally {
    void ctx.probe.runOnce();
  }
}

const deps = (ctx: ConsoleContext) => ({ redlock: ctx.redlock, nodes: ctx.registry.nodes });

export function acquireAudited(
  ctx: ConsoleContext,
  actor: Actor,
  body: AcquireRequest,
): Promise<LockGrant> {
  assertNotReserved(body.resources); // a bad request, refused before anything is audited or probed
  return audited(
    ctx,
    actor,
    { action: "acquire", resources: body.resources, value: null },
    () => acquireLock(deps(ctx), body, consoleOwnerLabels(actor.principal)),
    (lock) =>
      `acquired for ${body.ttlMs} ms, validity ${lock.validityMs} ms${lock.fencingToken === null ? "" : `, fencing token ${lock.fencingToken}`}`,
  );
}

export function extendAudited(
  ctx: ConsoleContext,
  actor: Actor,
  body: ExtendRequest,
): Promise<LockGrant> {
  assertNotReserved(body.resources); // a bad request, refused before anything is audited or probed
  return audited(
    ctx,
    actor,
    { action: "extend", resources: body.resources, value: body.value },
    () => extendLock(deps(ctx), body),
    (lock) => `extended to ${body.ttlMs} ms, validity ${lock.validityMs} ms`,
  );
}

export function releaseAudited(
  ctx: ConsoleContext,
  actor: Actor,
  body: ReleaseRequest,
): Promise<Omit<ReleaseResponse, "serverTime">> {
  assertNotReserved(body.resources); // a bad request, refused before anything is audited or probed
  return audited(
    ctx,
    actor,
    { action: "release", resources: body.resources, value: body.value },
    () => releaseLock(deps(ctx), body),
    (result) => `released on ${result.releasedCount} node(s)`,
  );
}
