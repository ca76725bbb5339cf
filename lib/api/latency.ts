/** `GET /api/latency?window=`: probe and action latency history. */
import { z } from "zod";
import { epochMsSchema, nodeAddressSchema, nodeIdSchema } from "./common";

export const DEFAULT_LATENCY_WINDOW_MS = 15 * 60_000;
export const MAX_LATENCY_WINDOW_MS = 24 * 60 * 60_000;

const DURATION = /^(\d{1,9})(ms|s|m|h)?$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** A window as `300` (seconds), `90s`, `15m`, `1h` or `500ms`. */
export const durationSchema = z
  .string()
  .regex(DURATION, "must be a duration such as 300, 90s, 15m or 1h")
  .transform((text) => {
    const [, amount, unit] = DURATION.exec(text)!;
    return Number(amount) * UNIT_MS[(unit ?? "s") as keyof typeof UNIT_MS];
  })
  .pipe(
    z.number().min(1_000, "must be at least 1s").max(MAX_LATENCY_WINDOW_MS, "must be at most 24h"),
  );

export const latencyQuerySchema = z.object({
  window: durationSchema.default(DEFAULT_LATENCY_WINDOW_MS),
});
export type LatencyQuery = z.infer<typeof latencyQuerySchema>;

export const latencySourceSchema = z.enum(["probe", "acquire", "extend", "release"]);
export type LatencySource = z.infer<typeof latencySourceSchema>;

/** One node's answer time in one operation. */
export const nodeLatencySampleSchema = z.object({
  at: epochMsSchema,
  /** null when the node failed or timed out. */
  latencyMs: z.number().nullable(),
  vote: z.enum(["for", "against"]),
  source: latencySourceSchema,
});
export type NodeLatencySample = z.infer<typeof nodeLatencySampleSchema>;

/** One whole operation: time until the quorum answered (the caller's wait). */
export const quorumLatencySampleSchema = z.object({
  at: epochMsSchema,
  latencyMs: z.number(),
  outcome: z.enum(["success", "failure"]),
  source: latencySourceSchema,
});
export type QuorumLatencySample = z.infer<typeof quorumLatencySampleSchema>;

export const latencyResponseSchema = z.object({
  serverTime: epochMsSchema,
  windowMs: z.number(),
  /** Interval of the scheduled probe in ms; 0 when off. */
  probeIntervalMs: z.number(),
  nodes: z.array(
    z.object({
      nodeId: nodeIdSchema,
      address: nodeAddressSchema,
      samples: z.array(nodeLatencySampleSchema),
    }),
  ),
  quorum: z.array(quorumLatencySampleSchema),
});
export type LatencyResponse = z.infer<typeof latencyResponseSchema>;
