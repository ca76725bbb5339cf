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
