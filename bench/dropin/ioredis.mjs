// ioredis for node-redlock's suite (bench/dropin-suite.ts): the real one, with the suite's host
// names (redis-single-instance, …) mapped to local ports by DROPIN_HOSTS ({"name": port}).
import * as real from "__REAL_IOREDIS__";

const ports = JSON.parse(process.env.DROPIN_HOSTS ?? "{}");
// "127.0.0.1" without a port is the suite's unreachable Redis: a port nothing listens on here
// (something may listen on 6379 on this machine).
const mapped = (node) =>
  node && typeof node === "object" && node.host in ports && node.port === undefined
    ? { ...node, host: "127.0.0.1", port: ports[node.host] }
    : node;

export * from "__REAL_IOREDIS__";
export class Redis extends real.Redis {
  constructor(options, ...rest) {
    super(mapped(options), ...rest);
  }
}
export class Cluster extends real.Cluster {
  constructor(nodes, options) {
    super(nodes.map(mapped), options);
  }
}
export default Redis;
