import "server-only";
/**
 * Asks one node what an operator must know: PING latency, INFO (run_id, uptime, role, memory
 * policy, persistence), TIME (clock skew against the console) and the save/fsync configuration.
 */
import type { Redis } from "ioredis";

export interface RawNodeInfo {
  readonly latencyMs: number;
  readonly info: Record<string, string>;
  /** Node TIME minus the console's clock at the midpoint of the round trip, in ms. */
  readonly clockSkewMs: number;
  /** CONFIG GET results; null when CONFIG is disabled (managed Redis often renames it). */
  readonly saveConfig: string | null;
  readonly appendfsync: string | null;
}

function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#"))
      fields[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return fields;
}

async function configValue(client: Redis, name: string): Promise<string | null> {
  try {
    const reply = (await client.config("GET", name)) as string[];
    return reply[1] ?? null;
  } catch {
    return null;
  }
}

export async function readNodeInfo(client: Redis): Promise<RawNodeInfo> {
  const pingStart = performance.now();
  await client.ping();
  const latencyMs = Math.round((performance.now() - pingStart) * 100) / 100;
  const timeStart = Date.now();
  const [seconds, micros] = await client.time();
  const timeEnd = Date.now();
  const nodeTimeMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const [info, saveConfig, appendfsync] = await Promise.all([
    client.info(),
    configValue(client, "save"),
    configValue(client, "appendfsync"),
  ]);
  return {
    latencyMs,
    info: parseInfo(info),
    clockSkewMs: nodeTimeMs - Math.round((timeStart + timeEnd) / 2),
    saveConfig,
    appendfsync,
  };
}
