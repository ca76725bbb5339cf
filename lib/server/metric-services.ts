import "server-only";

/** A `service` metric label is cut to this many characters: every scrape repeats it per series. */
export const METRIC_LABEL_MAX_CHARS = 64;

export interface MetricServicesOptions {
  /** Services always named as themselves (CONSOLE_METRICS_SERVICES), outside the cap. */
  readonly pinned: readonly string[];
  /** How many other services are named at once (CONSOLE_METRICS_MAX_SERVICES). */
  readonly maxServices: number;
  /** Removes a displaced service's series, so the registry holds only the named ones. */
  readonly onDisplaced: (service: string) => void;
}

/**
 * The owner `service` label as a metric label, a bounded set whatever the holders call
 * themselves: pinned services always; of the rest, the `maxServices` seen most recently. A service
 * not named yet displaces the one seen longest ago (its series are removed), so a flood of junk
 * labels cannot hold every place and hide a real service that comes after it: at worst the flood
 * displaces it again, and it is named again at its next transition, its counters from zero.
 */
export class MetricServices {
  /** Named services in the order they were last seen, the stalest first (Map keeps insertion order). */
  private readonly recent = new Map<string, true>();
  private readonly pinned: ReadonlySet<string>;

  constructor(private readonly options: MetricServicesOptions) {
    this.pinned = new Set(
      options.pinned.map((service) => service.slice(0, METRIC_LABEL_MAX_CHARS)),
    );
  }

  label(service: string): string {
    const cut = service.slice(0, METRIC_LABEL_MAX_CHARS);
    if (this.pinned.has(cut)) return cut;
    if (!this.recent.delete(cut) && this.recent.size >= this.options.maxServices) {
      const [stalest] = this.recent.keys();
      if (stalest !== undefined) {
        this.recent.delete(stalest);
        this.options.onDisplaced(stalest);
      }
    }
    this.recent.set(cut, true);
    return cut;
  }
}
