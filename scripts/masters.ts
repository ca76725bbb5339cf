/**
 * `npm run masters -- [--count 5] [--ports 7001,7002,...] [--persistence]`
 * Starts local Redis masters and keeps them until Ctrl-C (SIGINT) or SIGTERM.
 */
import { parseArgs } from "node:util";
import { MastersError, startMasters } from "@/scripts/redis-masters";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "5" },
    ports: { type: "string" },
    persistence: { type: "boolean", default: false },
  },
});

const count = Number(values.count);
const ports = values.ports?.split(",").map((port) => Number(port.trim()));
if (
  !Number.isInteger(count) ||
  count < 1 ||
  ports?.some((port) => !Number.isInteger(port) || port < 1 || port > 65535)
) {
  console.error(
    "--count must be a positive integer and --ports a comma-separated list of TCP ports.",
  );
  process.exit(2);
}

try {
  const masters = await startMasters({ count, ports, persistence: values.persistence });
  console.log(`REDLOCK_NODES=${masters.urls.join(",")}`);
  const shutdown = async () => {
    await masters.stop();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
} catch (error) {
  console.error(error instanceof MastersError ? error.message : error);
  process.exit(1);
}
