"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { AuditTable } from "@/components/locks/audit-table";
import { ErrorNotice } from "@/components/ui/error-notice";
import { auditActionSchema, type AuditAction } from "@/lib/api/audit";
import { useAudit } from "../_queries/audit";

const ACTIONS: readonly AuditAction[] = auditActionSchema.options;

/** The action filter lives in the URL (?action=force-release), so a filtered trail is a link. */
function useActionParam(): [AuditAction | "", (action: string) => void] {
  const requested = useSearchParams().get("action");
  const router = useRouter();
  const pathname = usePathname();
  const action = ACTIONS.find((name) => name === requested) ?? "";
  const setAction = (next: string) =>
    router.replace(next ? `${pathname}?action=${next}` : pathname, { scroll: false });
  return [action, setAction];
}

export function AuditClient() {
  const [action, setAction] = useActionParam();
  const { data, error } = useAudit(500);
  const entries = data?.entries.filter((entry) => !action || entry.action === action) ?? [];
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1>Audit trail</h1>
        <label className="row">
          Action
          <select value={action} onChange={(event) => setAction(event.target.value)}>
            <option value="">All actions</option>
            {ACTIONS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="muted">
        Every state-changing action, stored in a Redis stream on every reachable node and merged
        here, newest first.
      </p>
      {error && <ErrorNotice error={error} title="Audit trail unavailable" />}
      {data && data.unreachableNodes.length > 0 && (
        <p className="notice notice-warn">
          {data.unreachableNodes.join(", ")} did not answer: entries only they hold are missing.
        </p>
      )}
      {!data && !error && <p className="muted">Loading the audit trail…</p>}
      {data && entries.length === 0 && (
        <p className="notice notice-info">No audit entries{action ? ` for ${action}` : ""} yet.</p>
      )}
      {entries.length > 0 && <AuditTable entries={entries} />}
    </div>
  );
}
