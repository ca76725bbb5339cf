import { hostname } from "node:os";
import { isLabels } from "./protocol";
import type { OwnerInfo } from "./types";

export { isLabels };

/** Largest owner labels JSON (UTF-8 bytes) written next to a lock: it is sent with every acquire. */
export const OWNER_LABELS_MAX_BYTES = 1024;

/** The `owner` setting: labels to write with each lock, or false for no owner entry. */
export type OwnerSetting = Readonly<Record<string, string>> | false;
/** Any settings object carrying `owner` (settings.ts imports this file, not the reverse). */
interface WithOwner {
  readonly owner: OwnerSetting;
}

/** The labels and their JSON for one settings object, or undefined when owner metadata is off. */
export interface OwnerLabels {
  readonly labels: Readonly<Record<string, string>>;
  readonly json: string;
}

// Computed once per settings object (the instance's, or a call's overrides), never per acquire.
const cache = new WeakMap<WithOwner, OwnerLabels | undefined>();
let libraryLabels: Record<string, string> | undefined;

function assertLabels(labels: unknown): asserts labels is Record<string, string> {
  if (typeof labels !== "object" || labels === null || Array.isArray(labels))
    throw new TypeError(`Setting "owner" must be an object of string labels, or false.`);
  for (const [name, label] of Object.entries(labels))
    if (typeof label !== "string")
      throw new TypeError(`Owner label "${name}" must be a string, got ${typeof label}.`);
}

/** Merges the per-call labels over the instance's (later wins); `false` on either side turns it off. */
export function mergeOwner(base: OwnerSetting, override: OwnerSetting | undefined): OwnerSetting {
  if (override === undefined) return base;
  if (override === false) return false;
  assertLabels(override);
  return base === false ? override : { ...base, ...override };
}

/**
 * The library's labels (host, pid), then the owner setting's; throws a TypeError when they are not
 * string labels or their JSON exceeds OWNER_LABELS_MAX_BYTES.
 */
export function ownerLabels(settings: WithOwner): OwnerLabels | undefined {
  if (cache.has(settings)) return cache.get(settings);
  let resolved: OwnerLabels | undefined;
  if (settings.owner !== false) {
    assertLabels(settings.owner);
    libraryLabels ??= { host: hostname(), pid: String(process.pid) };
    const labels = Object.freeze({ ...libraryLabels, ...settings.owner });
    const json = JSON.stringify(labels);
    const bytes = Buffer.byteLength(json);
    if (bytes > OWNER_LABELS_MAX_BYTES)
      throw new TypeError(
        `Owner labels serialize to ${bytes} bytes of JSON, over the ${OWNER_LABELS_MAX_BYTES}-byte limit.`,
      );
    resolved = { labels, json };
  }
  cache.set(settings, resolved);
  return resolved;
}

/** Parses an owner entry's fields as a node returned them; undefined if they are not ours. */
export function parseOwner(
  labelsJson: unknown,
  acquiredAt: unknown,
  extensions: unknown,
): OwnerInfo | undefined {
  try {
    const labels: unknown = JSON.parse(String(labelsJson));
    const acquiredAtMs = Number(acquiredAt);
    const extensionCount = Number(extensions);
    if (!isLabels(labels) || !Number.isFinite(acquiredAtMs) || !Number.isInteger(extensionCount))
      return undefined;
    return { labels, acquiredAt: acquiredAtMs, extensions: extensionCount };
  } catch {
    return undefined;
  }
}
