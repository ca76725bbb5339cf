/**
 * A loopback TCP proxy to one Redis server, as an L4 sidecar would be: the test stops it (every
 * connection through it closes at once, new ones are refused) and starts it again on the same port,
 * or repoints it at another server (a failover behind one address).
 */
import net from "node:net";

export class TcpProxy {
  #targetPort: number;
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | null = null;
  #port = 0;

  private constructor(targetPort: number) {
    this.#targetPort = targetPort;
  }

  /** Starts a proxy to 127.0.0.1:`targetPort` on a free port. */
  static async start(targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetPort);
    await proxy.resume();
    return proxy;
  }

  /** The port the proxy listens on (the same across stop and resume). */
  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.#port}`;
  }

  /** Listens again (on the same port once it has one), piping each connection to the target. */
  async resume(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.#targetPort, "127.0.0.1");
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
        socket.on("error", () => (client.destroy(), upstream.destroy()));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#port, "127.0.0.1", resolve);
    });
    this.#port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  /** From now on pipes to 127.0.0.1:`targetPort`; the connections to the old target are closed. */
  repoint(targetPort: number): void {
    this.#targetPort = targetPort;
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Stops listening and closes every connection through the proxy, both ends. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
