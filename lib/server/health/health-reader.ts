import "server-only";
/**
 * `/api/health` for load balancers: answered at once from the latest node report while it is
 * younger than `staleMs` (a fresh one is read meanwhile, shared with every other reader of the
 * report); only without such a report does a check wait for the nodes. A burst of readers that
 * keeps the node connections busy then never holds a health check behind it. `staleMs` 0: every
 * check waits for the report, as `/api/nodes` does.
 */
import type { HealthResponse, NodesResponse } from "@/lib/api";
import { healthOf } from "./health";

export function healthReader(
  report: () => Promise<NodesResponse>,
  readOnly: boolean,
  staleMs: number,
): () => Promise<HealthResponse> {
  let latest: NodesResponse | null = null;
  const refresh = () =>
    report().then((fresh) => {
      latest = fresh;
      return fresh;
    });
  return async () => {
    if (latest && Date.now() - latest.serverTime < staleMs) {
      void refresh().catch(() => undefined);
      return healthOf(latest, readOnly);
    }
    return healthOf(await refresh(), readOnly);
  };
}
