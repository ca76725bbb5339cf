import { formatTimestamp, shortValue } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { AuditEntry } from "@/lib/api";

/** Audit entries, newest first: who did what to which lock, why, and how it ended. */
export function AuditTable({
  entries,
  label = "Audit entries",
}: {
  entries: AuditEntry[];
  label?: string;
}) {
  return (
    <PlainTable label={label} columns={["When", "Action", "Resources", "Outcome", "Reason", "Who"]}>
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
              className={entry.outcome === "success" ? "badge badge-held" : "badge badge-conflict"}
            >
              {entry.outcome}
            </span>
            <div className="muted">{entry.detail}</div>
          </td>
          <td className="wrap-anywhere">
            {entry.reason ?? "—"}
            {entry.incident && (
              <div>
                <a href={entry.incident} target="_blank" rel="noopener noreferrer">
                  incident
                </a>
              </div>
            )}
          </td>
          <td>
            {entry.actor}
            <div className="muted">
              {[
                entry.credential,
                entry.role && entry.rule ? `${entry.role} by ${entry.rule}` : null,
                entry.clientIp,
              ]
                .filter(Boolean)
                .join(" · ")}
            </div>
            <a className="muted" href={`/audit?id=${encodeURIComponent(entry.id)}`}>
              link to this entry
            </a>
          </td>
        </tr>
      ))}
    </PlainTable>
  );
}
