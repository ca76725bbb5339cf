import { MAX_INCIDENT_URL_LENGTH } from "@/lib/api";

/** The optional incident link of a state-changing action: kept in its audit entry (http(s) only). */
export function IncidentField({
  value,
  onChange,
  readOnly = false,
}: {
  value: string;
  onChange: (value: string) => void;
  readOnly?: boolean;
}) {
  return (
    <label>
      Incident link (optional, kept in the audit entry)
      <input
        type="url"
        placeholder="https://…"
        maxLength={MAX_INCIDENT_URL_LENGTH}
        readOnly={readOnly}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </label>
  );
}

/** The request field: absent when nothing was typed. */
export const incidentOf = (text: string): { incident?: string } =>
  text.trim() ? { incident: text.trim() } : {};
