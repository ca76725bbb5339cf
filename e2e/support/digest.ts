import { createHash } from "node:crypto";

/** What an anonymous reader sees instead of a lock value (app/api/_lib/redact.ts): `sha1:` + 12 hex. */
export const digestOf = (value: string): string =>
  `sha1:${createHash("sha1").update(value, "utf8").digest("hex").slice(0, 12)}`;
