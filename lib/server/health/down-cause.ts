/**
 * Why a node does not answer, in words, decided once per report from what its connection met.
 * ioredis fails a command on a down node with its own wrapper ("Command timed out", "Reached the
 * max retries per request limit"), whichever fires first, so those alternate from poll to poll;
 * the socket's own error (ECONNREFUSED…) arrives only as the client's "error" event. While the
 * client is not connected, that last connection error is the cause; once connected, a command
 * that overruns the deadline is a timeout. Pure.
 */
import type { DownCauseKind } from "@/lib/api";

/** The last error the node's connection met since it was last ready. */
export interface ConnectionFault {
  readonly code: string | undefined;
  readonly message: string;
}

export interface DownCauseInput {
  /** The error of the failed read. */
  readonly error: unknown;
  /** The client's status: "ready" when connected and usable. */
  readonly clientStatus: string;
  readonly fault: ConnectionFault | null;
  /** host:port, no credentials. */
  readonly address: string;
  readonly deadlineMs: number;
}

export interface DownCause {
  readonly kind: DownCauseKind;
  readonly message: string;
}

const AUTH_REPLY = /^(WRONGPASS|NOAUTH|NOPERM)\b/;
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME"]);
const ROUTE_CODES = new Set(["EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ENETDOWN"]);
const LOST_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);
const TLS_PATTERN = /^(ERR_SSL|ERR_TLS|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY)/;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function authCause(message: string): DownCause {
  return {
    kind: "auth",
    message: `authentication refused: ${message} (check the user and password in the node's URL)`,
  };
}

/** A connection error by its system code; the address is the node's, never the URL. */
function faultCause(fault: ConnectionFault, address: string): DownCause {
  const code = fault.code ?? "";
  if (AUTH_REPLY.test(fault.message)) return authCause(fault.message);
  if (code === "ECONNREFUSED")
    return { kind: "refused", message: `connection refused: nothing listens on ${address}` };
  if (code === "ETIMEDOUT")
    return {
      kind: "connect_timeout",
      message: `connection timed out: ${address} accepted no connection (host off, or a firewall drops it)`,
    };
  if (DNS_CODES.has(code))
    return {
      kind: "dns",
      message: `host not found: ${address.replace(/:\d+$/, "")} does not resolve`,
    };
  if (ROUTE_CODES.has(code)) return { kind: "no_route", message: `no route to ${address}` };
  if (LOST_CODES.has(code))
    return { kind: "connection_lost", message: `connection reset by ${address}` };
  if (TLS_PATTERN.test(code) || /\b(SSL|TLS|certificate)\b/i.test(fault.message))
    return { kind: "tls", message: `TLS handshake with ${address} failed: ${fault.message}` };
  return { kind: "other", message: fault.message };
}

export function downCauseOf(input: DownCauseInput): DownCause {
  const message = messageOf(input.error);
  if (AUTH_REPLY.test(message)) return authCause(message);
  if (input.clientStatus !== "ready") {
    if (input.fault) return faultCause(input.fault, input.address);
    return {
      kind: "connection_lost",
      message: `not connected: the connection to ${input.address} closed and reconnecting has not succeeded yet`,
    };
  }
  if (/Command timed out|no answer within/.test(message))
    return {
      kind: "timeout",
      message: `no answer within ${input.deadlineMs} ms: the connection is open but the process does not reply (paused, overloaded, or the network drops packets)`,
    };
  return { kind: "other", message };
}
