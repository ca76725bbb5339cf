/** How a key's bytes are named on the page and in the API: UTF-8 text, or base64 beside it. */
import type { LockRow } from "@/lib/api";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
// eslint-disable-next-line no-control-regex -- control characters are valid in keys and ASCII
export const ASCII = /^[\x00-\x7f]*$/;

/** describeKey of a key held as the latin1 of its bytes (the index's form); ASCII names as they are. */
export function describeLatin1Key(key: string): Pick<LockRow, "resource" | "resourceBase64"> {
  return ASCII.test(key) ? { resource: key } : describeKey(Buffer.from(key, "latin1"));
}

/** The display name of a key, plus its base64 when its bytes are not valid UTF-8. */
export function describeKey(key: Buffer): Pick<LockRow, "resource" | "resourceBase64"> {
  try {
    return { resource: strictUtf8.decode(key) };
  } catch {
    return { resource: key.toString("utf8"), resourceBase64: key.toString("base64") };
  }
}
