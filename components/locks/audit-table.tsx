import { formatTimestamp, shortValue } from "@/components/ui/format";
import type { AuditEntry } from "@/lib/api/audit";

/** Audit entries, newest first: who did what to which lock, why, and how it ended. */
export function AuditTable({
  entries,
  label = "Audit entries",
}: {
  entries: AuditEntry[];
  label?: string;
}) {
  return (
    <div className="table-scroll">
      <table className="plain" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">Resources</th>
            <th scope="col">Outcome</th>
            <th scope="col">Reason</th>
            <th scope="col">Who</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td className="nowrap">{formatTimestamp(entry.at)}</td>
              <td>{entry.action}</td>
              <td className="wrap-anywhere">
                {entry.resources.join(", ") || "—"}
                {entry.value && (
                  <div className="muted">
                    value <code title={entry.value}>{shortValue(entry.value)}</code>
                  </div>
                )}
              </td>
              <td>
                <span
                  className={
                    entry.outcome === "success" ? "badge badge-held" : "badge badge-conflict"
                  }
                >
                  {entry.outcome}
                </span>
                <div className="muted">{entry.detail}</div>
              </td>
              <td className="wrap-anywhere">{entry.reason ?? "—"}</td>
              <td>
                {entry.actor}
                <div className="muted">{entry.clientIp}</div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
