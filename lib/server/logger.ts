import "server-only";
/**
 * The console's pino logger. Credentials never reach a log line: known secret fields are redacted,
 * and node addresses are always logged without their userinfo (see redactUrl).
 */
import pino from "pino";

export const logger = pino({
  name: "redlock-console",
  level: process.env.LOG_LEVEL ?? "info",
  redact: {
    paths: [
      "password",
      "*.password",
      "token",
      "*.token",
      "adminToken",
      "*.adminToken",
      "authorization",
      "*.authorization",
      "headers.authorization",
      "headers.cookie",
      "*.headers.authorization",
      "*.headers.cookie",
      "cookie",
      "url",
      "*.url",
      "nodeUrls",
      "*.nodeUrls",
    ],
    censor: "[redacted]",
  },
});

/** `redis://user:secret@host:6380/2` -> `host:6380`: what may be shown or logged about a node. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "6379"}`;
  } catch {
    return "[invalid url]";
  }
}

/** Removes anything URL-shaped with credentials from free text (e.g. an ioredis error message). */
export function redactText(text: string): string {
  return text.replace(/\b(rediss?):\/\/[^\s@/]*@/gi, "$1://[redacted]@");
}
