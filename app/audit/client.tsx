"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { AuditTable } from "@/components/locks/audit-table";
import { ErrorNotice } from "@/components/ui/error-notice";
import { auditActionSchema, type AuditAction } from "@/lib/api";
import { useAuditSearch, type AuditFilters } from "../_queries/audit";
import { AuditFilterBar } from "./filter-bar";

const ACTIONS: readonly AuditAction[] = auditActionSchema.options;
const FILTER_NAMES = ["action", "person", "resource", "since", "until", "id"] as const;

const epochOrUndefined = (text: string | null) => {
  const value = text === null ? Number.NaN : Number(text);
  return Number.isFinite(value) ? value : undefined;
};

/** Every filter lives in the URL (?person=alice@…&resource=…), so a filtered trail is a link. */
function useFilterParams(): [
  { action: AuditAction | ""; filters: AuditFilters },
  (name: (typeof FILTER_NAMES)[number], value: string) => void,
] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const requested = params.get("action");
  const filters: AuditFilters = {
    person: params.get("person") ?? undefined,
    resource: params.get("resource") ?? undefined,
    since: epochOrUndefined(params.get("since")),
    until: epochOrUndefined(params.get("until")),
    id: params.get("id") ?? undefined,
  };
  const set = (name: (typeof FILTER_NAMES)[number], value: string) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(name, value);
    else next.delete(name);
    const query = next.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  return [{ action: ACTIONS.find((name) => name === requested) ?? "", filters }, set];
}

export function AuditClient() {
  const [{ action, filters }, setFilter] = useFilterParams();
  const { data, error } = useAuditSearch(500, filters);
  const entries = data?.entries.filter((entry) => !action || entry.action === action) ?? [];
  const filtered = action !== "" || Object.values(filters).some((value) => value !== undefined);
  return (
    <div className="stack">
      <h1>{filters.id ? "Audit entry" : "Audit trail"}</h1>
      <AuditFilterBar action={action} actions={ACTIONS} filters={filters} onChange={setFilter} />
      <p className="muted">
        Every state-changing action, stored in a Redis stream on every reachable node and merged
        here, newest first. Each names the person (or break-glass), the credential, and the grant
        that allowed it.
      </p>
      {error && <ErrorNotice error={error} title="Audit trail unavailable" />}
      {data && data.unreachableNodes.length > 0 && (
        <p className="notice notice-warn">
          {data.unreachableNodes.join(", ")} did not answer: entries only they hold are missing.
        </p>
      )}
      {data?.scanLimitReached && (
        <p className="notice notice-warn">
          The search looked back through the newest 20,000 entries per node: older matches may
          exist. Narrow the time window to reach them.
        </p>
      )}
      {!data && !error && <p className="muted">Loading the audit trail…</p>}
      {data && entries.length === 0 && (
        <p className="notice notice-info">
          {filtered ? "No audit entries match these filters." : "No audit entries yet."}
        </p>
      )}
      {entries.length > 0 && <AuditTable entries={entries} />}
    </div>
  );
}
