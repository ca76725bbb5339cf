/**
 * Whether a node can be read: its command connection open (ioredis' "ready" and "close") and the
 * node answering on it (liveness-probe.ts: a paused or hung node keeps the connection open but
 * answers nothing). The watch turns each change into a phase event (phase.ts).
 */
import type { Clock } from "../io/clock";
import type { CommandConnection } from "../io/connections";
import { LivenessProbe } from "./liveness-probe";

export type ReachabilityChange = "connected" | "disconnected" | "answered" | "unanswered";

export interface ReachabilityOptions {
  readonly client: CommandConnection;
  readonly clock: Clock;
  /** A PING unanswered this long marks the node unresponsive. */
  readonly nodeTimeoutMs: number;
  /** Whether the watch holds the node as disconnected now (its phase). */
  readonly disconnected: () => boolean;
  readonly onChange: (change: ReachabilityChange) => void;
}

export class Reachability {
  readonly #options: ReachabilityOptions;
  readonly #probe: LivenessProbe;

  constructor(options: ReachabilityOptions) {
    this.#options = options;
    const { client, clock, nodeTimeoutMs, onChange } = options;
    this.#probe = new LivenessProbe({
      client,
      clock,
      nodeTimeoutMs,
      onChange: (responsive) => onChange(responsive ? "answered" : "unanswered"),
    });
    client.on("ready", () => this.#connected());
    client.on("close", () => {
      if (!options.disconnected()) onChange("disconnected");
    });
    // After construction: the index wires the watch up before hearing from it.
    if (client.status === "ready") queueMicrotask(() => this.#connected());
  }

  /** The heartbeat: a PING on a connected node, unanswered past the node timeout, is a change. */
  check(): void {
    if (!this.#options.disconnected()) this.#probe.check();
  }

  #connected(): void {
    if (!this.#options.disconnected()) return;
    this.#probe.reset();
    this.#options.onChange("connected");
  }
}
