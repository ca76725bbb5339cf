/**
 * A loopback TCP load balancer in front of console replicas, as a round-robin L4 balancer without
 * sticky sessions: each new connection goes to the next upstream port; one that refuses the
 * connection (a dead replica) is skipped for the next. A paused replica accepts and never answers,
 * as it would behind a real balancer until its health check fails.
 */
import net from "node:net";

export class RoundRobinProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #upstreams: number[];
  #next = 0;

  private constructor(upstreams: number[]) {
    this.#upstreams = upstreams;
    this.#server = net.createServer((client) => this.#route(client, this.#upstreams.length));
  }

  /** Listens on `port` (0: a free one). */
  static async start(upstreams: number[], port = 0): Promise<RoundRobinProxy> {
    const proxy = new RoundRobinProxy(upstreams);
    await new Promise<void>((resolve) => proxy.#server.listen(port, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as net.AddressInfo).port}`;
  }

  /** The replicas behind it from now on (a restarted replica listens on a new port). */
  setUpstreams(upstreams: number[]): void {
    this.#upstreams = upstreams;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #route(client: net.Socket, triesLeft: number): void {
    if (triesLeft === 0) return void client.destroy();
    const port = this.#upstreams[this.#next++ % this.#upstreams.length]!;
    const upstream = net.connect(port, "127.0.0.1");
    let connected = false;
    upstream.once("error", () => {
      if (!connected) this.#route(client, triesLeft - 1);
    });
    upstream.once("connect", () => {
      connected = true;
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
      }
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    client.pause();
    upstream.once("connect", () => client.resume());
  }
}
