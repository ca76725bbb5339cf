/**
 * Whether the node answers at all. A paused or hung node keeps its connections open but answers
 * nothing: a PING on the command connection every heartbeat, unanswered past the node timeout (or
 * rejected by the command timeout), marks it unresponsive until a PING is answered again. Nothing is
 * lost meanwhile (notifications wait in the socket), so its return needs no relist.
 */
import type { Clock } from "../io/clock";
import type { PingClient } from "../io/connections";

export interface LivenessProbeOptions {
  readonly client: PingClient;
  readonly clock: Clock;
  /** A PING unanswered this long marks the node unresponsive. */
  readonly nodeTimeoutMs: number;
  /** The node became responsive or unresponsive. */
  readonly onChange: (responsive: boolean) => void;
}

export class LivenessProbe {
  readonly #options: LivenessProbeOptions;
  #responsive = true;
  /** When the PING still awaiting its answer was sent; null: none is. */
  #pingSentAtMs: number | null = null;

  constructor(options: LivenessProbeOptions) {
    this.#options = options;
  }

  /** The connection (re)opened: the node answers, without a change to report. */
  reset(): void {
    this.#responsive = true;
  }

  /** One heartbeat: sends a PING, or judges the one still unanswered. */
  check(): void {
    const nowMs = this.#options.clock.now();
    const sentAtMs = this.#pingSentAtMs;
    if (sentAtMs !== null) {
      // Judged only after the event loop has read its sockets, not in this callback: when this
      // process itself stalled (GC, a starved CPU), the answer may sit unread in the socket while
      // the timer that judges it runs first, and a node that answered at once read as
      // unresponsive (and history showed a gap) on a loaded machine. Two immediates: a full turn
      // of the loop, with its poll phase, lies between, whichever phase this runs in.
      if (nowMs - sentAtMs > this.#options.nodeTimeoutMs)
        setImmediate(() =>
          setImmediate(() => {
            if (this.#pingSentAtMs === sentAtMs) this.#set(false);
          }),
        );
      return;
    }
    this.#pingSentAtMs = nowMs;
    this.#options.client
      .ping()
      .then(
        () => this.#set(true),
        () => this.#set(false),
      )
      .finally(() => (this.#pingSentAtMs = null));
  }

  #set(responsive: boolean): void {
    if (this.#responsive === responsive) return;
    this.#responsive = responsive;
    this.#options.onChange(responsive);
  }
}
