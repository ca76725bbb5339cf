/**
 * CONSOLE_WAIT_OBJECTIVES: the wait-time objectives, one JSON array in one variable (docs/console.md,
 * "Wait-time objectives"). Each says "`target` of the waits on locks matching `match` (and/or by
 * contenders labelled `service`) end within `thresholdMs`, over `windowDays`", e.g.
 * `[{"name":"orders","match":"orders:*","thresholdMs":200,"target":0.99,"windowDays":30}]`.
 * Plain zod, no server-only: config.ts (also run by scripts/start.ts) parses it.
 */
import { z } from "zod";

export const waitObjectiveSchema = z
  .object({
    /** A metric label value: short and plain. */
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, "name: 1-40 letters, digits, _ . -"),
    /** Redis glob on the resource name (orders:*); absent: every lock. */
    match: z.string().min(1).max(256).optional(),
    /** The contender's owner `service` label; absent: every service. */
    service: z.string().min(1).max(128).optional(),
    thresholdMs: z
      .number()
      .int("thresholdMs: whole ms")
      .min(1, "thresholdMs: at least 1")
      .max(86_400_000, "thresholdMs: at most a day"),
    /** The share of waits that must end within thresholdMs, e.g. 0.99. */
    target: z
      .number()
      .gt(0, "target: above 0")
      .lt(1, "target: below 1, e.g. 0.99 (1 leaves no error budget)"),
    windowDays: z
      .number()
      .int("windowDays: whole days")
      .min(1, "windowDays: 1 to 90")
      .max(90, "windowDays: 1 to 90")
      .default(30),
  })
  .strict();
export type WaitObjective = z.infer<typeof waitObjectiveSchema>;

/** The variable's text: a JSON array of objectives with distinct names (at most 50). */
export const waitObjectivesVar = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: "custom", message: "must be a JSON array of objectives" });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(waitObjectiveSchema)
      .max(50, "at most 50 objectives")
      .refine(
        (objectives) =>
          new Set(objectives.map((objective) => objective.name)).size === objectives.length,
        "objective names must be distinct",
      ),
  );
