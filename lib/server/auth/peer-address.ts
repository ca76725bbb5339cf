import "server-only";
/**
 * Stamps each incoming HTTP request with its TCP peer address (PEER_ADDRESS_HEADER), replacing any
 * value the client sent. Route handlers see headers only, and Next.js keeps a client-sent
 * X-Forwarded-For as is, so without this every limiter keyed by address could be dodged by
 * inventing addresses. Installed once per process by instrumentation.ts; servers created before
 * it are covered too, since it patches the prototype they share.
 */
import { EventEmitter } from "node:events";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { PEER_ADDRESS_HEADER } from "./client-info";

const INSTALLED = Symbol.for("redlock-console.peer-address");

export function installPeerAddressHeader(): void {
  for (const Server of [http.Server, https.Server]) {
    const prototype = Server.prototype as unknown as Record<symbol, boolean> & EventEmitter;
    if (prototype[INSTALLED]) continue;
    prototype[INSTALLED] = true;
    const emit = prototype.emit;
    prototype.emit = function (this: EventEmitter, event: string | symbol, ...args: unknown[]) {
      if (event === "request") {
        const request = args[0] as IncomingMessage;
        request.headers[PEER_ADDRESS_HEADER] = request.socket?.remoteAddress ?? "unknown";
      }
      return emit.call(this, event, ...args);
    };
  }
}
