/**
 * The arguments scripts/start.ts gives Next.js, and where it probes for readiness. Next.js' own
 * `next start -p` listens on every interface and ignores HOSTNAME, so the console always passes
 * `--hostname` from its own variable, CONSOLE_HOST (default 127.0.0.1; a container says 0.0.0.0).
 * HOSTNAME is never read: Docker sets it to the container id and some shells export it.
 */

/** `next start` / `next dev` arguments: the port and, always, the interface to listen on. */
export function nextServerArgs(options: {
  readonly dev: boolean;
  readonly port: string;
  readonly host: string;
}): string[] {
  return [options.dev ? "dev" : "start", "-p", options.port, "--hostname", options.host];
}

/** The host a local readiness probe reaches the console on (a wildcard is reached on loopback). */
export function probeHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
