/** `GET/POST/DELETE /api/session`: browser login with the admin token. */
import { z } from "zod";
import { epochMsSchema } from "./common";

export const loginRequestSchema = z.strictObject({
  token: z.string().min(1, "must not be empty").max(512, "must be at most 512 characters"),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const sessionResponseSchema = z.object({
  /** The request carries a valid admin credential (cookie or bearer). */
  authenticated: z.boolean(),
  /** Epoch ms at which the session cookie expires; null without a session. */
  expiresAt: epochMsSchema.nullable(),
  /** CONSOLE_READ_ONLY: state-changing routes are refused for everyone. */
  readOnly: z.boolean(),
  /** Read routes answer without a credential. */
  publicRead: z.boolean(),
  /** authenticated && !readOnly: the UI may offer acquire/extend/release/force-release. */
  canWrite: z.boolean(),
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;
