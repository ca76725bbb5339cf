"use client";

import { ErrorNotice } from "@/components/ui/error-notice";
import { formatTimestamp } from "@/components/ui/format";
import { PlainTable } from "@/components/ui/plain-table";
import type { PersonalToken } from "@/lib/api";
import { useRevokeToken } from "../_queries/tokens";

const grantText = (grant: PersonalToken["grants"][number]) => {
  const scope = [
    grant.resources && `resources ${grant.resources.join(", ")}`,
    grant.services && `services ${grant.services.join(", ")}`,
  ].filter(Boolean);
  return `${grant.role} for ${scope.length > 0 ? scope.join(" and ") : "everything"}`;
};

export function TokenTable({ tokens, showOwner }: { tokens: PersonalToken[]; showOwner: boolean }) {
  const revoke = useRevokeToken();
  const columns = ["Name", ...(showOwner ? ["Owner"] : []), "Grants", "Expires", "Last used", ""];
  return (
    <>
      {revoke.error && <ErrorNotice error={revoke.error} title="The token was not revoked" />}
      <PlainTable label="Personal tokens" columns={columns}>
        {tokens.map((token) => (
          <tr key={token.id}>
            <td>
              <code>{token.name}</code>
              <div className="muted">id {token.id}</div>
            </td>
            {showOwner && <td>{token.ownerLabel}</td>}
            <td>
              {token.grants.map((grant) => (
                <div key={grant.rule} title={`within ${grant.rule}`}>
                  {grantText(grant)}
                </div>
              ))}
            </td>
            <td className="nowrap">{formatTimestamp(token.expiresAt)}</td>
            <td className="nowrap">
              {token.lastUsedAt === null ? "never used" : formatTimestamp(token.lastUsedAt)}
            </td>
            <td>
              <button
                type="button"
                disabled={revoke.isPending}
                onClick={() => {
                  if (window.confirm(`Revoke token ${token.name}? Scripts using it stop at once.`))
                    revoke.mutate(token.id);
                }}
              >
                {revoke.isPending && revoke.variables === token.id ? "Revoking…" : "Revoke"}
              </button>
            </td>
          </tr>
        ))}
      </PlainTable>
    </>
  );
}
