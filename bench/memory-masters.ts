/**
 * `npx tsx bench/memory-masters.ts [locksPerNode] [otherKeysPerNode]`: five masters (keyspace
 * events on, as the embedded ones) seeded for bench/memory-next.ts: 100,000 locks (TTL 2 h) and
 * 50,000 application hashes per node unless told; `BENCH_LOCK_VALUES=rl1`: the locks' values as this
 * library writes them (owner labels, a holder session), else 40-hex tokens. Prints REDLOCK_NODES,
 * then keeps the masters up until SIGINT/SIGTERM.
 */
import { Redis } from "ioredis";
import { startMasters } from "@/scripts/redis-masters";
import { seedLocks, seedOtherHashes } from "./seed";

const [locks = 100_000, others = 50_000] = process.argv.slice(2).map(Number);
const masters = await startMasters({ count: 5, dataDir: ".data/memory-masters" });
const admins = masters.urls.map((url) => new Redis(url));
await seedOtherHashes(admins, "app:", others);
await seedLocks(admins, "lock:", 0, locks, 2 * 3_600_000, process.env.BENCH_LOCK_VALUES === "rl1");
await Promise.all(admins.map((admin) => admin.quit()));
process.stdout.write(`${masters.urls.join(",")}\n`);
const stop = () => void masters.stop().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
