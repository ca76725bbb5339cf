/**
 * The console's route handlers behind a real Node.js HTTP server on loopback, with the same hook
 * `next start` installs (http-server-hooks.ts: each request stamped with its TCP peer address), and
 * a client that picks its source address: Linux answers all of 127/8 on loopback, so a request from
 * 127.0.0.2 and one from 127.0.0.1 differ only in the peer the console sees (a trusted proxy's
 * address, or anyone's).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { installHttpServerHooks } from "@/lib/server/http-server-hooks";
import { ORIGIN } from "./helpers";

type Handler = (request: Request) => Promise<Response>;
/** The handler for a method and path; undefined: 404. */
export type Router = (method: string, pathname: string) => Handler | undefined;

export interface HttpConsole {
  readonly port: number;
  close(): Promise<void>;
}

export async function serveRoutes(router: Router): Promise<HttpConsole> {
  installHttpServerHooks();
  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const url = new URL(incoming.url ?? "/", ORIGIN);
      const handler = router(incoming.method ?? "GET", url.pathname);
      if (!handler) {
        outgoing.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers))
        if (typeof value === "string") headers.set(name, value);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      void handler(new Request(url, { method: incoming.method, headers, body })).then(
        async (response) => {
          outgoing.writeHead(response.status, Object.fromEntries(response.headers));
          outgoing.end(Buffer.from(await response.arrayBuffer()));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface HttpCall {
  readonly method?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The client socket's source address. @default "127.0.0.2" (the trusted proxy in these tests) */
  readonly from?: string;
  /** Origin header; null: none. @default ORIGIN for non-GET */
  readonly origin?: string | null;
}

export interface HttpAnswer<T> {
  readonly status: number;
  readonly body: T;
}

export function httpCall<T = unknown>(
  console: HttpConsole,
  path: string,
  options: HttpCall = {},
): Promise<HttpAnswer<T>> {
  const method = options.method ?? (options.body === undefined ? "GET" : "POST");
  const origin = options.origin === undefined ? (method === "GET" ? null : ORIGIN) : options.origin;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    host: new URL(ORIGIN).host,
    ...(origin === null ? {} : { origin }),
    ...(payload === undefined ? {} : { "content-type": "application/json" }),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port: console.port,
        path,
        method,
        headers,
        localAddress: options.from ?? "127.0.0.2",
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
          resolve({ status: response.statusCode ?? 0, body: body as T });
        });
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}
