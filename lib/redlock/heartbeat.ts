import type { RedisDriver } from "./driver";
import type { RedlockNode } from "./node";

/** How a client's connection changed: a new one is ready, one was lost, a cluster re-read its slots. */
type ConnectionChange = "ready" | "lost" | "topology";
type ChangeListener = (change: ConnectionChange) => void;

/** Per client, the heartbeats listening to its connection changes (one set of client listeners each). */
const listenersByDriver = new WeakMap<RedisDriver, Set<ChangeListener>>();

/** Runs `listener` at each connection change of `driver`; returns what stops it. */
function onConnectionChange(driver: RedisDriver, listener: ChangeListener): () => void {
  let listeners = listenersByDriver.get(driver);
  if (!listeners) {
    const created = new Set<ChangeListener>();
    const notify = (change: ConnectionChange) => () => {
      for (const each of created) each(change);
    };
    driver.on("ready", notify("ready"));
    driver.on("close", notify("lost"));
    driver.cluster?.onServerLost(notify("lost"));
    driver.cluster?.onTopology(notify("topology"));
    listenersByDriver.set(driver, (listeners = created));
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * A session's heartbeat on one node: `SET <session key> <json> PX <window>`, the JSON naming the
 * CLIENT ID of the connection that sends it, so the console can tell whether that connection is
 * still open. The id is read once per connection (CLIENT ID, on a cluster the connection to the
 * primary owning the key), again after a reconnection or when the key's slot moved to another
 * primary, and the heartbeat then goes out at once. At most one heartbeat is in flight: a paused
 * node holds one command of ours, not one per period.
 */
export class NodeHeartbeat {
  private clientId: number | undefined;
  /** The primary that served the key when its connection's id was read (clusters). */
  private primary: string | undefined;
  /** Bumped at each connection change: an id read across one may name the old connection. */
  private generation = 0;
  private sending = false;
  /** Beat again as soon as the one in flight is answered (the connection changed meanwhile). */
  private again = false;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly node: RedlockNode,
    private readonly key: string,
    /** The key's value for a connection id. */
    private readonly valueFor: (clientId: number) => string,
    private readonly windowMs: number,
  ) {}

  start(): void {
    this.stopListening ??= onConnectionChange(this.node.driver, (change) => this.changed(change));
    this.beat();
  }

  stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  /** Sends one heartbeat, unless one is in flight or the node takes no commands now. */
  beat(): void {
    if (!this.stopListening || this.sending) return;
    if (this.node.unavailableReason() || this.node.driver.status === "end") return;
    this.sending = true;
    void this.send().finally(() => {
      this.sending = false;
      if (this.again) {
        this.again = false;
        this.beat();
      }
    });
  }

  private async send(): Promise<void> {
    const { driver } = this.node;
    const generation = this.generation;
    try {
      let clientId = this.clientId;
      if (clientId === undefined) {
        this.primary = driver.cluster?.primaryOf(this.key);
        clientId = await driver.clientId(this.key);
        if (generation !== this.generation) return void (this.again = true);
        this.clientId = clientId;
      }
      await driver.command("SET", [this.key, this.valueFor(clientId), "PX", this.windowMs]);
      if (generation !== this.generation) this.again = true;
    } catch {
      // The connection may have changed under it: read the id again at the next period.
      if (generation === this.generation) this.clientId = undefined;
    }
  }

  private changed(change: ConnectionChange): void {
    if (
      change === "topology" &&
      this.clientId !== undefined &&
      this.node.driver.cluster?.primaryOf(this.key) === this.primary
    )
      return;
    this.clientId = undefined;
    this.generation += 1;
    // After a loss too: a cluster client opens a new connection to the key's primary on demand,
    // and a single client's beat waits for its "ready" (beat() sends nothing while reconnecting).
    if (this.sending) this.again = true;
    else this.beat();
  }
}
