import "server-only";
/**
 * Two things only the Node.js HTTP server itself can do, hooked into it once per process by
 * instrumentation.ts (a prototype patch, so it also covers the server `next start` created first):
 *
 * - Stamp each request with its TCP peer address (PEER_ADDRESS_HEADER), replacing any value the
 *   client sent. Route handlers see headers only, and Next.js keeps a client-sent X-Forwarded-For
 *   as is, so without this every limiter keyed by address could be dodged by inventing addresses.
 * - Answer 405 to TRACE, TRACK and CONNECT: the fetch API refuses to build a Request for them, so
 *   Next.js fails on them with a bare 500 (and a logged stack) before proxy.ts could answer.
 * - Answer requests Node cannot parse (a 60 KB query string overflows its 16 KB header limit) with
 *   the API's JSON error body instead of Node's bare "431" or "400" line. These never reach Next.js.
 */
import type { EventEmitter } from "node:events";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import type { ErrorBody } from "@/lib/api";
import { PEER_ADDRESS_HEADER } from "./auth/client-info";

const INSTALLED = Symbol.for("redlock-console.http-server-hooks");
/** Methods the fetch API forbids (new Request throws), so no Next.js code can handle them. */
const FORBIDDEN_METHODS = new Set(["TRACE", "TRACK", "CONNECT"]);

function answerMethodNotAllowed(request: IncomingMessage, response: http.ServerResponse): void {
  const body: ErrorBody = {
    error: {
      code: "method_not_allowed",
      message: `${request.method} is not supported; see the README's HTTP API section.`,
    },
  };
  response.writeHead(405, {
    "content-type": "application/json",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
  });
  response.end(JSON.stringify(body));
}

/** The raw response for a request Node's parser refused: 431 for oversized headers, else 400. */
export function parseErrorResponse(errorCode: string | undefined): string {
  const tooLarge = errorCode === "HPE_HEADER_OVERFLOW";
  const body: ErrorBody = {
    error: tooLarge
      ? {
          code: "invalid_request",
          message:
            "The request line and headers must stay under 16 KB; send long values in a JSON body.",
        }
      : { code: "invalid_request", message: "The request is not valid HTTP/1.1." },
  };
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request"}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(json)}`,
    "Cache-Control: no-store",
    "X-Content-Type-Options: nosniff",
    "Connection: close",
    "",
    json,
  ].join("\r\n");
}

export function installHttpServerHooks(): void {
  for (const Server of [http.Server, https.Server]) {
    const prototype = Server.prototype as unknown as EventEmitter & Record<symbol, boolean>;
    if (prototype[INSTALLED]) continue;
    prototype[INSTALLED] = true;
    const emit = prototype.emit;
    prototype.emit = function (this: EventEmitter, event: string | symbol, ...args: unknown[]) {
      if (event === "request") {
        const request = args[0] as IncomingMessage;
        request.headers[PEER_ADDRESS_HEADER] = request.socket?.remoteAddress ?? "unknown";
        if (FORBIDDEN_METHODS.has(request.method ?? "")) {
          answerMethodNotAllowed(request, args[1] as http.ServerResponse);
          return true;
        }
      } else if (event === "clientError") {
        const [error, socket] = args as [NodeJS.ErrnoException, Duplex];
        // Timeouts and resets have no one left to answer; Node closes those sockets itself.
        if (
          socket.writable &&
          error.code !== "ECONNRESET" &&
          error.code !== "ERR_HTTP_REQUEST_TIMEOUT"
        ) {
          socket.end(parseErrorResponse(error.code));
          return true;
        }
      }
      return emit.call(this, event, ...args);
    };
  }
}
