/**
 * Shares one in-flight load among every concurrent caller, and reuses its result for `maxAgeMs`:
 * a hundred browsers polling cost one Redis scan per interval, not a hundred.
 */
export function singleFlight<T>(load: () => Promise<T>, maxAgeMs: number): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let latest: { value: T; at: number } | undefined;
  return () => {
    if (latest && performance.now() - latest.at < maxAgeMs) return Promise.resolve(latest.value);
    inFlight ??= load()
      .then((value) => {
        latest = { value, at: performance.now() };
        return value;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}

interface Flight<T> {
  inFlight?: Promise<T>;
  latest?: { value: T; at: number };
}

/** Distinct keys a keyed single flight remembers at most, by default. */
export const DEFAULT_FLIGHT_KEYS = 256;

/**
 * singleFlight per key (a session id, a page's query): concurrent callers of one key share its
 * load, and its result serves that key for `maxAgeMs`. At most `maxKeys` keys are remembered:
 * stale ones go when a new key comes, then the oldest if still full, so a reader asking for ever
 * new keys costs memory for `maxKeys` results at most. A load that fails is not kept: the next
 * caller tries again.
 */
export function keyedSingleFlight<T>(
  maxAgeMs: number,
  maxKeys = DEFAULT_FLIGHT_KEYS,
): (key: string, load: () => Promise<T>) => Promise<T> {
  const flights = new Map<string, Flight<T>>();
  const fresh = (flight: Flight<T>, nowMs: number) =>
    flight.latest !== undefined && nowMs - flight.latest.at < maxAgeMs;
  const makeRoom = (nowMs: number) => {
    for (const [key, flight] of flights)
      if (!flight.inFlight && !fresh(flight, nowMs)) flights.delete(key);
    if (flights.size >= maxKeys) flights.delete(flights.keys().next().value!);
  };
  return (key, load) => {
    const nowMs = performance.now();
    let flight = flights.get(key);
    if (flight && fresh(flight, nowMs)) return Promise.resolve(flight.latest!.value);
    if (!flight) {
      // Stale results go whenever a new key comes.
      makeRoom(nowMs);
      flight = {};
      flights.set(key, flight);
    }
    const current = flight;
    current.inFlight ??= load()
      .then((value) => {
        current.latest = { value, at: performance.now() };
        return value;
      })
      .finally(() => {
        current.inFlight = undefined;
        // Nothing to reuse (maxAgeMs 0, or a failure): the key is not kept.
        if ((!current.latest || maxAgeMs <= 0) && flights.get(key) === current) flights.delete(key);
      });
    return current.inFlight;
  };
}
