/**
 * The console server's clock as seen from this browser, so countdowns tick from the server's time.
 *
 * Every response carries `serverTime`. `serverTime - receivedAt` is a lower bound of the true offset
 * (a cached snapshot or a slow response only make it smaller), so the largest recent observation is
 * the best estimate. Keeping it stable across polls is what stops countdowns jumping at each refetch.
 */
const WINDOW = 30;
const observations: number[] = [];
let offsetMs = 0;

export function observeServerTime(serverTimeMs: number, receivedAtMs: number = Date.now()): void {
  if (!Number.isFinite(serverTimeMs)) return;
  observations.push(serverTimeMs - receivedAtMs);
  if (observations.length > WINDOW) observations.shift();
  offsetMs = Math.max(...observations);
}

/** The server's current time in epoch ms. */
export function serverNow(): number {
  return Date.now() + offsetMs;
}
