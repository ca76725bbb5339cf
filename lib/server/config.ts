/**
 * The console's configuration, parsed once from the environment by one zod schema. A bad value
 * stops the start with one message that lists every bad variable, not only the first.
 * No "server-only" guard here on purpose: scripts/start.ts (plain Node) validates the environment
 * with it before spawning Next.js; the module holds no secret itself, it only reads process.env.
 * Over 300 lines on purpose: it is the one list of settings (schema, typed shape, mapping) that the
 * README's configuration table mirrors; the kinds of value live apart (config-vars.ts and the
 * *-config.ts files beside it).
 */
import { z } from "zod";
import {
  adminTokenSchema,
  booleanVar,
  TOKEN_HINT,
  integerVar,
  listVar,
  nodeUrl,
  redisUrl,
} from "./config-vars";

export { isClusterUrl, MIN_ADMIN_TOKEN_LENGTH } from "./config-vars";
import { rbacDefaultRoleVar, rbacVar, type RbacRule } from "./rbac-config";
import { waitObjectivesVar, type WaitObjective } from "./wait-objectives-config";
import { missingOidcVars, oidcSettingsOf, oidcVars, type OidcSettings } from "./oidc-config";
import { headerNameVar, proxyAddressesVar, type ProxyAddress } from "./auth-proxy-config";

/** CONSOLE_HEAP_MODE (heap-mode.ts). */
export type HeapMode = "compact" | "default";

/**
 * Default of CONSOLE_SCAN_BUDGET_PER_S: keys per second per node. A key costs one whether SCAN visits
 * it (then reading it if it may be a lock is part of that) or a notification names it. At 25,000 a
 * node of 250,000 keys is listed in ~10 s (healed after a gap ~10× faster: HEAL_PACE_FACTOR), and
 * spends ~10% of one core on it meanwhile (bench/README.md: the snapshot section measures it); nothing while nothing changes.
 */
export const DEFAULT_SCAN_BUDGET_PER_S = 25_000;
/**
 * A relist after a gap runs this many times faster than the steady budget unless
 * CONSOLE_HEAL_BUDGET_PER_S says: at the default, 250,000 keys a second, a node of 250,000 keys
 * heals in about a second instead of ten (a gap is rare, and until it heals a lock taken in it is
 * missing from the list).
 */
export const HEAL_PACE_FACTOR = 10;
/** Value bytes per second a node's reads may touch when no budget is configured (locks/watch/io/budget.ts). */
export const DEFAULT_READ_BYTES_PER_S = 16 * 1024 * 1024;

/**
 * Default of CONSOLE_SHAPE_SAMPLES_PER_S: keys of skipped shapes given an expiry read per
 * second per node (watch/events/shape-table.ts), 2% of the default budget: a lock under a skipped
 * shape shows within a second while its shape's keys get expiries slower than this.
 */
export const DEFAULT_SAMPLE_READS_PER_S = 500;

/**
 * Lock transitions kept by default: ~25 MB (bench/timeline.ts measured ~500 bytes per transition
 * with owner labels), e.g. an hour of a lock taken 14 times a second.
 */
export const DEFAULT_HISTORY_MAX = 50_000;

const envSchema = z.object({
  REDLOCK_NODES: listVar.pipe(z.array(nodeUrl).min(1, "must list at least one redis:// URL")),
  CONSOLE_ADMIN_TOKEN: adminTokenSchema.optional(),
  CONSOLE_READ_ONLY: booleanVar.default(false),
  LOCK_MATCH: listVar
    .pipe(z.array(z.string().max(1024)).min(1, "must list at least one pattern"))
    .default(["*"]),
  CONSOLE_PUBLIC_READ: booleanVar.default(true),
  CONSOLE_PROBE_INTERVAL_MS: integerVar(0, 3_600_000).default(10_000),
  CONSOLE_RESTART_QUARANTINE_MS: integerVar(0, 86_400_000).default(0),
  CONSOLE_NODE_TIMEOUT_MS: integerVar(10, 60_000).default(500),
  CONSOLE_SNAPSHOT_MAX_AGE_MS: integerVar(0, 60_000).default(1_000),
  CONSOLE_SCAN_MAX_KEYS: integerVar(100, 10_000_000).default(1_000_000),
  CONSOLE_SCAN_BUDGET_PER_S: integerVar(100, 10_000_000).default(DEFAULT_SCAN_BUDGET_PER_S),
  CONSOLE_READ_BYTES_PER_S: integerVar(64 * 1024, 1024 * 1024 * 1024).default(
    DEFAULT_READ_BYTES_PER_S,
  ),
  CONSOLE_RESYNC_INTERVAL_MS: integerVar(1_000, 86_400_000).default(300_000),
  CONSOLE_NOTIFY_CHECK_MS: integerVar(1_000, 3_600_000).default(10_000),
  CONSOLE_HEAL_BUDGET_PER_S: integerVar(100, 100_000_000).optional(),
  CONSOLE_ENABLE_KEYSPACE_EVENTS: booleanVar.default(false),
  CONSOLE_RESTORE_KEYSPACE_EVENTS: booleanVar.default(false),
  CONSOLE_HEAP_MODE: z
    .enum(["compact", "default"], { error: 'must be "compact" or "default"' })
    .default("compact"),
  CONSOLE_SKIP_SHAPE_AFTER_READS: integerVar(0, 1_000_000_000).default(1_000),
  CONSOLE_SHAPE_SAMPLE_MS: integerVar(100, 3_600_000).default(1_000),
  CONSOLE_SHAPE_SAMPLES_PER_S: integerVar(0, 1_000_000).default(DEFAULT_SAMPLE_READS_PER_S),
  CONSOLE_SESSION_TTL_S: integerVar(60, 30 * 86_400).default(8 * 3_600),
  CONSOLE_TOKEN_MAX_TTL_DAYS: integerVar(1, 3_650).default(90),
  CONSOLE_AUDIT_MAXLEN: integerVar(100, 10_000_000).default(10_000),
  CONSOLE_AUDIT_RETENTION_DAYS: integerVar(1, 36_500).default(365),
  CONSOLE_AUDIT_REFUSALS_MAXLEN: integerVar(100, 10_000_000).default(10_000),
  CONSOLE_AUDIT_REFUSAL_FLUSH_MS: integerVar(100, 60_000).default(10_000),
  CONSOLE_HISTORY_MAX: integerVar(100, 10_000_000).default(DEFAULT_HISTORY_MAX),
  CONSOLE_STATE_URL: redisUrl.optional(),
  CONSOLE_REPLICA_ID: z
    .string()
    .regex(/^[\w.:-]{1,64}$/, "must be 1 to 64 letters, digits, '.', ':', '_' or '-'")
    .optional(),
  CONSOLE_WRITER_LEASE_MS: integerVar(1_000, 60_000).default(4_000),
  CONSOLE_METRICS_MAX_SERVICES: integerVar(1, 10_000).default(50),
  CONSOLE_METRICS_SERVICES: listVar
    .pipe(z.array(z.string().max(64, "each service at most 64 characters")).max(1_000))
    .default([]),
  CONSOLE_CLOCK_SKEW_WARN_MS: integerVar(1, 3_600_000).default(500),
  CONSOLE_LONG_HELD_MS: integerVar(1_000, 30 * 86_400_000).default(300_000),
  CONSOLE_LONG_WAIT_MS: integerVar(100, 30 * 86_400_000).default(60_000),
  CONSOLE_ALLOWED_ORIGINS: listVar.pipe(z.array(z.url())).default([]),
  CONSOLE_TRUST_PROXY: booleanVar.default(false),
  CONSOLE_READ_LIMIT_PER_S: integerVar(1, 100_000).default(20),
  CONSOLE_HOST: z
    .string()
    .max(255)
    .regex(
      /^[A-Za-z0-9.:[\]%-]+$/,
      "must be a host name or an IP address, e.g. 127.0.0.1 or 0.0.0.0",
    )
    .default("127.0.0.1"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  CONSOLE_WAIT_OBJECTIVES: waitObjectivesVar.default([]),
  CONSOLE_RBAC: rbacVar.default([]),
  CONSOLE_RBAC_DEFAULT_ROLE: rbacDefaultRoleVar.default("viewer"),
  ...oidcVars,
  CONSOLE_SIGN_IN_TTL_S: integerVar(60, 30 * 86_400).default(8 * 3_600),
  CONSOLE_BREAK_GLASS: booleanVar.default(true),
  CONSOLE_VIEWER_VALUES: booleanVar.default(false),
  CONSOLE_AUTH_PROXY_ADDRESSES: proxyAddressesVar.default([]),
  CONSOLE_AUTH_PROXY_USER_HEADER: headerNameVar.default("x-forwarded-user"),
  CONSOLE_AUTH_PROXY_EMAIL_HEADER: headerNameVar.default("x-forwarded-email"),
  CONSOLE_AUTH_PROXY_GROUPS_HEADER: headerNameVar.default("x-forwarded-groups"),
});

export interface ConsoleConfig {
  /** redis:// or rediss:// URLs, one per independent master or Redis Cluster (`?cluster=true`). */
  readonly nodeUrls: readonly string[];
  /** The admin credential; unset: every state-changing route answers 401. */
  readonly adminToken: string | undefined;
  readonly readOnly: boolean;
  /** SCAN MATCH patterns whose keys are shown as locks. */
  readonly lockMatch: readonly string[];
  /** Read routes answer without a credential. */
  readonly publicRead: boolean;
  /** Scheduled latency probe interval; 0 turns it off. */
  readonly probeIntervalMs: number;
  /** Restart quarantine of the console's own Redlock (0: off). */
  readonly restartQuarantineMs: number;
  /** Per-node command budget: no node makes a request wait longer than this. */
  readonly nodeTimeoutMs: number;
  /** How long one snapshot serves every viewer before a new scan. */
  readonly snapshotMaxAgeMs: number;
  /** Lock keys indexed per node at most, so a huge keyspace cannot exhaust the console's memory. */
  readonly scanMaxKeys: number;
  /**
   * Keys per second the live index may visit (SCAN COUNT) or read on each node, listing, resyncing,
   * polling and reading what notifications name alike: freshness degrades, the masters do not.
   */
  readonly scanBudgetPerS: number;
  /** Value bytes per second the live index may read or hash on each node (budget.ts). */
  readonly readBytesPerS: number;
  /** How often a watched node is relisted anyway (paced), to heal what notifications missed. */
  readonly resyncIntervalMs: number;
  /** How often a watched node's notify-keyspace-events is read again (flags switched off at run time). */
  readonly notifyCheckIntervalMs: number;
  /**
   * Keys per second a relist after a gap (subscriber lost, overflow, restart) may visit on a node:
   * the index misses changes until it ends. Default HEAL_PACE_FACTOR × scanBudgetPerS.
   */
  readonly healBudgetPerS: number;
  /** Turn on the keyspace notifications the index needs on nodes that lack them (CONFIG SET). */
  readonly enableKeyspaceEvents: boolean;
  /**
   * On close, put back the notify-keyspace-events this console changed (by CONSOLE_ENABLE_KEYSPACE_EVENTS
   * or the node card's action). Off by default: another console or application may rely on them.
   */
  readonly restoreKeyspaceEvents: boolean;
  /**
   * How V8 sizes the server's heap (heap-mode.ts): "compact" lets it grow to at most 2× what is live
   * between full collections, "default" leaves V8's own sizing (up to ~4×).
   */
  readonly heapMode: HeapMode;
  /**
   * With notifications on, a key shape (`orders:*:view`) read this many times without holding a lock
   * is no longer read on notifications (the resync still lists it); 0: every changed key is read.
   */
  readonly skipShapeAfterReads: number;
  /** A skipped shape still has one changed key read this often (ms), to notice it holding locks. */
  readonly shapeSampleIntervalMs: number;
  /** Keys of skipped shapes given an expiry read per second per node at most (0: none). */
  readonly shapeSampleReadsPerS: number;
  readonly sessionTtlS: number;
  /** The longest expiry of a personal token, in days (CONSOLE_TOKEN_MAX_TTL_DAYS). */
  readonly tokenMaxTtlDays: number;
  /**
   * Approximate MAXLEN of the audit stream on each node. Replicas trim by the largest any of them
   * configured (audit/stream-append.ts).
   */
  readonly auditMaxLen: number;
  /** Audit entries (actions and refusals) older than this, by each node's clock, are trimmed. */
  readonly auditRetentionDays: number;
  /** Approximate MAXLEN of the refusal log's stream on each node (audit/refusal-log.ts). */
  readonly auditRefusalsMaxLen: number;
  /** How often refusals summed in memory are written: a crash loses at most this much of them. */
  readonly auditRefusalFlushMs: number;
  /** Lock transitions kept in memory (and in the state store) at most. */
  readonly historyMax: number;
  /** A Redis for the console's own state (transition history), never a lock node; unset: memory only. */
  readonly stateUrl: string | undefined;
  /** This replica's name in /api/health and in the history it writes; unset: host:pid:random. */
  readonly replicaId: string | undefined;
  /** How long the history writer's lease in the state store lasts unrenewed (the failover bound's core). */
  readonly writerLeaseMs: number;
  /** Owner `service` labels the metrics always name, outside metricsMaxServices. */
  readonly metricsServices: readonly string[];
  /** Other owner `service` labels the metrics name at once: the most recently seen. */
  readonly metricsMaxServices: number;
  readonly clockSkewWarnMs: number;
  /** A lock held longer than this (by its owner entry's acquiredAt) is flagged and counted. */
  readonly longHeldMs: number;
  /** A lock whose oldest waiter has waited longer than this is flagged and counted. */
  readonly longWaitMs: number;
  /** Origins accepted for state-changing requests besides the console's own. */
  readonly allowedOrigins: readonly string[];
  /** Take the client address from X-Forwarded-For's last hop (only behind a proxy you run). */
  readonly trustProxy: boolean;
  /** Read requests per second per client address (bursts of ten times that). */
  readonly readLimitPerS: number;
  /**
   * The interface `npm start` listens on (CONSOLE_HOST; never HOSTNAME, which Docker sets to the
   * container id). Default 127.0.0.1; a container must say 0.0.0.0.
   */
  readonly host: string;
  readonly logLevel: string;
  /** Wait-time objectives (CONSOLE_WAIT_OBJECTIVES, wait-objectives-config.ts); [] when none. */
  readonly waitObjectives: readonly WaitObjective[];
  /** Roles from groups (CONSOLE_RBAC, rbac-config.ts); [] when none. */
  readonly rbacRules: readonly RbacRule[];
  /** The role of a signed-in person no rule names. */
  readonly rbacDefaultRole: "viewer" | "none";
  /** Sign-in with OpenID Connect (oidc-config.ts); null when CONSOLE_OIDC_ISSUER is unset. */
  readonly oidc: OidcSettings | null;
  /** How long a sign-in lasts before the person signs in again (and their groups are re-read). */
  readonly signInTtlS: number;
  /** CONSOLE_BREAK_GLASS: the shared admin token is accepted (every use audited and counted). */
  readonly breakGlass: boolean;
  /** Viewers see lock values as they are, not only their digests (operators always do). */
  readonly viewerValues: boolean;
  /**
   * The authenticating proxy (proxy-identity.ts): requests whose TCP peer is one of these addresses
   * are believed when their headers name a person; [] turns the proxy sign-in off.
   */
  readonly authProxy: {
    readonly addresses: readonly ProxyAddress[];
    /** Lowercase header names: the user (required), their email and groups (comma-separated). */
    readonly userHeader: string;
    readonly emailHeader: string;
    readonly groupsHeader: string;
  };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses the environment; throws one ConfigError naming every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): ConsoleConfig {
  return toConfig(env, true);
}

/** `host:port` of a redis URL, localhost spelled one way; null when it is no URL. */
function serverOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    const host = ["localhost", "[::1]"].includes(parsed.hostname) ? "127.0.0.1" : parsed.hostname;
    return `${host}:${parsed.port || "6379"}`;
  } catch {
    return null;
  }
}

/**
 * The lock node (`host:port`) the state store's URL names, else null. A first check, by address;
 * the console also compares run_ids when it opens the store (open-state-store.ts).
 */
function lockNodeNamed(stateUrl: string | undefined, nodeUrls: readonly string[]): string | null {
  const server = stateUrl === undefined ? null : serverOf(stateUrl);
  return server !== null && nodeUrls.some((url) => serverOf(url) === server) ? server : null;
}

function toConfig(env: Record<string, string | undefined>, requireToken: boolean): ConsoleConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = envSchema.safeParse(present);
  // Names the variable (and list entry) but never echoes a value: a URL may carry a password.
  const lines = (result.error?.issues ?? []).map((issue) => {
    const [name = "env", entry] = issue.path;
    return `  ${String(name)}${typeof entry === "number" ? `[${entry}]` : ""}: ${issue.message}`;
  });
  const readOnly = booleanVar.safeParse(present.CONSOLE_READ_ONLY ?? "false").data === true;
  const signInOnly = present.CONSOLE_OIDC_ISSUER !== undefined;
  if (requireToken && !readOnly && !signInOnly && present.CONSOLE_ADMIN_TOKEN === undefined) {
    lines.push(
      `  CONSOLE_ADMIN_TOKEN: is required unless CONSOLE_READ_ONLY=true or CONSOLE_OIDC_ISSUER is set (npm start generates one in embedded mode; else ${TOKEN_HINT})`,
    );
  }
  const clash = result.success
    ? lockNodeNamed(result.data.CONSOLE_STATE_URL, result.data.REDLOCK_NODES)
    : null;
  if (clash !== null)
    lines.push(
      `  CONSOLE_STATE_URL: names lock node ${clash} (REDLOCK_NODES): the console's state must live on another Redis`,
    );
  lines.push(...missingOidcVars(present));
  if (!result.success || lines.length > 0) {
    throw new ConfigError(`Invalid console configuration:\n${[...new Set(lines)].join("\n")}`);
  }
  const vars = result.data;
  return {
    nodeUrls: vars.REDLOCK_NODES,
    adminToken: vars.CONSOLE_ADMIN_TOKEN,
    readOnly: vars.CONSOLE_READ_ONLY,
    lockMatch: vars.LOCK_MATCH,
    publicRead: vars.CONSOLE_PUBLIC_READ,
    probeIntervalMs: vars.CONSOLE_PROBE_INTERVAL_MS,
    restartQuarantineMs: vars.CONSOLE_RESTART_QUARANTINE_MS,
    nodeTimeoutMs: vars.CONSOLE_NODE_TIMEOUT_MS,
    snapshotMaxAgeMs: vars.CONSOLE_SNAPSHOT_MAX_AGE_MS,
    scanMaxKeys: vars.CONSOLE_SCAN_MAX_KEYS,
    scanBudgetPerS: vars.CONSOLE_SCAN_BUDGET_PER_S,
    readBytesPerS: vars.CONSOLE_READ_BYTES_PER_S,
    resyncIntervalMs: vars.CONSOLE_RESYNC_INTERVAL_MS,
    notifyCheckIntervalMs: vars.CONSOLE_NOTIFY_CHECK_MS,
    healBudgetPerS:
      vars.CONSOLE_HEAL_BUDGET_PER_S ?? HEAL_PACE_FACTOR * vars.CONSOLE_SCAN_BUDGET_PER_S,
    enableKeyspaceEvents: vars.CONSOLE_ENABLE_KEYSPACE_EVENTS,
    restoreKeyspaceEvents: vars.CONSOLE_RESTORE_KEYSPACE_EVENTS,
    heapMode: vars.CONSOLE_HEAP_MODE,
    skipShapeAfterReads: vars.CONSOLE_SKIP_SHAPE_AFTER_READS,
    shapeSampleIntervalMs: vars.CONSOLE_SHAPE_SAMPLE_MS,
    shapeSampleReadsPerS: vars.CONSOLE_SHAPE_SAMPLES_PER_S,
    sessionTtlS: vars.CONSOLE_SESSION_TTL_S,
    tokenMaxTtlDays: vars.CONSOLE_TOKEN_MAX_TTL_DAYS,
    auditMaxLen: vars.CONSOLE_AUDIT_MAXLEN,
    auditRetentionDays: vars.CONSOLE_AUDIT_RETENTION_DAYS,
    auditRefusalsMaxLen: vars.CONSOLE_AUDIT_REFUSALS_MAXLEN,
    auditRefusalFlushMs: vars.CONSOLE_AUDIT_REFUSAL_FLUSH_MS,
    historyMax: vars.CONSOLE_HISTORY_MAX,
    stateUrl: vars.CONSOLE_STATE_URL,
    replicaId: vars.CONSOLE_REPLICA_ID,
    writerLeaseMs: vars.CONSOLE_WRITER_LEASE_MS,
    metricsServices: vars.CONSOLE_METRICS_SERVICES,
    metricsMaxServices: vars.CONSOLE_METRICS_MAX_SERVICES,
    clockSkewWarnMs: vars.CONSOLE_CLOCK_SKEW_WARN_MS,
    longHeldMs: vars.CONSOLE_LONG_HELD_MS,
    longWaitMs: vars.CONSOLE_LONG_WAIT_MS,
    allowedOrigins: vars.CONSOLE_ALLOWED_ORIGINS.map((origin) => new URL(origin).origin),
    trustProxy: vars.CONSOLE_TRUST_PROXY,
    readLimitPerS: vars.CONSOLE_READ_LIMIT_PER_S,
    host: vars.CONSOLE_HOST,
    logLevel: vars.LOG_LEVEL,
    waitObjectives: vars.CONSOLE_WAIT_OBJECTIVES,
    rbacRules: vars.CONSOLE_RBAC,
    rbacDefaultRole: vars.CONSOLE_RBAC_DEFAULT_ROLE,
    oidc: oidcSettingsOf(vars),
    signInTtlS: vars.CONSOLE_SIGN_IN_TTL_S,
    breakGlass: vars.CONSOLE_BREAK_GLASS,
    viewerValues: vars.CONSOLE_VIEWER_VALUES,
    authProxy: {
      addresses: vars.CONSOLE_AUTH_PROXY_ADDRESSES,
      userHeader: vars.CONSOLE_AUTH_PROXY_USER_HEADER,
      emailHeader: vars.CONSOLE_AUTH_PROXY_EMAIL_HEADER,
      groupsHeader: vars.CONSOLE_AUTH_PROXY_GROUPS_HEADER,
    },
  };
}

/** Defaults for everything but the node URLs: what tests and embedded callers start from. */
export function configFor(
  nodeUrls: readonly string[],
  overrides: Partial<ConsoleConfig> = {},
): ConsoleConfig {
  return { ...toConfig({ REDLOCK_NODES: nodeUrls.join(",") }, false), ...overrides };
}
