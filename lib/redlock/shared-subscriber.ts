import type { RedisDriver, Subscriber } from "./driver";

/** A client's pub/sub connection and, per channel, the session listening there. */
interface Shared {
  readonly connection: Promise<Subscriber>;
  readonly listeners: Map<string, (message: string) => void>;
}

/**
 * Per client, one pub/sub connection shared by every session on it (issue 40, item 6): with one
 * per Redlock instance, each new instance paid a connection setup beside its first acquire, and
 * many instances on one client (node-redlock's suite makes one per test) missed node-redlock's
 * expiration checks. Each session listens on its own channel; the connection closes when the last
 * one leaves.
 */
const sharedByDriver = new WeakMap<RedisDriver, Shared>();

function forget(driver: RedisDriver, shared: Shared): void {
  if (sharedByDriver.get(driver) === shared) sharedByDriver.delete(driver);
}

/**
 * Subscribes `onMessage` to `channel` on `driver`'s shared subscriber connection, opening it if
 * none is open; resolves, once the server confirmed, with what leaves the channel. Rejects (and
 * leaves) when the connection or the subscription failed: a later call tries a new connection.
 */
export async function subscribeShared(
  driver: RedisDriver,
  channel: string,
  onMessage: (message: string) => void,
): Promise<() => void> {
  let shared = sharedByDriver.get(driver);
  if (!shared) {
    const created: Shared = { connection: driver.subscriber(), listeners: new Map() };
    created.connection.catch(() => forget(driver, created));
    sharedByDriver.set(driver, (shared = created));
  }
  const { connection, listeners } = shared;
  const owner = shared;
  listeners.set(channel, onMessage);
  const leave = () => {
    if (listeners.get(channel) !== onMessage) return;
    listeners.delete(channel);
    if (listeners.size > 0) return;
    forget(driver, owner);
    void connection.then(
      (subscriber) => subscriber.close(),
      () => undefined,
    );
  };
  try {
    const subscriber = await connection;
    // Routed through the map: a session that left hears nothing more on its channel.
    await subscriber.subscribe(channel, (message) => listeners.get(channel)?.(message));
    return leave;
  } catch (error) {
    leave();
    throw error;
  }
}
