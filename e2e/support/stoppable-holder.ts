/**
 * A lock holder in a process of its own, for specs that SIGSTOP it while it holds (events-words):
 * the real library with its holder session (heartbeat every second), acquires argv's resource with
 * a TTL of `ttlMs` and extends it every third of the TTL, as a worker with a long job does. Prints
 * `{"held":"<value>","pid":<pid>}` once it holds the lock. argv[2]: JSON {urls, resource, ttlMs, service}.
 */
import { Redis } from "ioredis";
import Redlock from "../../lib/redlock/index";

const args = JSON.parse(process.argv[2]!) as {
  urls: string[];
  resource: string;
  ttlMs: number;
  service: string;
};
const clients = args.urls.map((url) => new Redis(url));
const redlock = new Redlock(clients, { retryCount: 0, owner: { service: args.service } });
redlock.on("error", () => undefined);
let lock = await redlock.acquire([args.resource], args.ttlMs);
process.stdout.write(`${JSON.stringify({ held: lock.value, pid: process.pid })}\n`);
for (;;) {
  await new Promise((resolve) => setTimeout(resolve, args.ttlMs / 3));
  lock = await lock.extend(args.ttlMs);
}
