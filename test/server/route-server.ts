/**
 * The console's route handlers behind a real HTTP server on loopback, so tests speak HTTP as a
 * script would (sockets, headers, status lines), without a Next.js build. Each route is a path
 * pattern and the route module; the peer address header is set from the socket, as
 * http-server-hooks.ts does in the real server.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PEER_ADDRESS_HEADER } from "@/lib/server/auth/client-info";

type Handler = (request: Request) => Promise<Response>;
export type RouteModule = Partial<Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", Handler>>;

export interface RouteServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  close(): Promise<void>;
}

export async function serveRoutes(
  routes: ReadonlyArray<[RegExp, RouteModule]>,
): Promise<RouteServer> {
  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      void (async () => {
        const url = new URL(incoming.url ?? "/", `http://${incoming.headers.host}`);
        const routeModule = routes.find(([pattern]) => pattern.test(url.pathname))?.[1];
        const handler = routeModule?.[incoming.method as keyof RouteModule];
        if (!handler) {
          outgoing.writeHead(404, { "content-type": "application/json" });
          outgoing.end('{"error":{"code":"not_found","message":"no such test route"}}');
          return;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (typeof value === "string") headers.set(name, value);
          else if (Array.isArray(value)) headers.set(name, value.join(", "));
        }
        headers.set(PEER_ADDRESS_HEADER, incoming.socket.remoteAddress ?? "unknown");
        const body = Buffer.concat(chunks);
        const response = await handler(
          new Request(url, {
            method: incoming.method,
            headers,
            body: body.length > 0 ? body : undefined,
          }),
        );
        outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        outgoing.end(Buffer.from(await response.arrayBuffer()));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
