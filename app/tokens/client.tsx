"use client";

import { useState } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import { useSession } from "../_queries/session";
import { useTokens, type TokenOwners } from "../_queries/tokens";
import { CreateTokenForm } from "./create-form";
import { ownersChoice } from "./owners-choice";
import { TokenTable } from "./token-table";

/** Personal tokens: create one (its secret shown once), list them with last use, revoke. */
export function TokensClient() {
  const session = useSession().data;
  const [owner, setOwner] = useState<TokenOwners>("mine");
  const tokens = useTokens(owner);
  if (!session) return <p className="muted">Loading who you are…</p>;
  if (!session.authenticated) {
    return (
      <div className="stack">
        <h1>Personal tokens</h1>
        <p className="notice notice-info">
          Sign in to create and see your tokens: a token acts as you, for scripts.
        </p>
      </div>
    );
  }
  const owners = ownersChoice(session.grants);
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1>Personal tokens</h1>
        {owners.everyone && (
          <label className="row">
            Show
            <select value={owner} onChange={(event) => setOwner(event.target.value as TokenOwners)}>
              <option value="mine">My tokens</option>
              <option value="all">Everyone&apos;s tokens</option>
            </select>
          </label>
        )}
      </div>
      {owners.onlyOwnBecause && (
        <p className="notice notice-info">
          You see and revoke only your own tokens. {owners.onlyOwnBecause}
        </p>
      )}
      <p className="muted">
        A token acts as you, with the role and scope you give it (never more than your own), until
        it expires or is revoked. Scripts send it as <code>Authorization: Bearer rlc_…</code>; the
        audit says &quot;you via token &lt;name&gt;&quot;.
      </p>
      {session.person ? (
        <CreateTokenForm
          grants={session.grants}
          maxExpiresInHours={tokens.data?.maxExpiresInHours ?? null}
        />
      ) : (
        <p className="notice notice-info">
          You are signed in with the break-glass admin token, which is nobody in particular: sign in
          as yourself to create a token. You can still revoke anyone&apos;s.
        </p>
      )}
      {tokens.error && <ErrorNotice error={tokens.error} title="Tokens unavailable" />}
      {!tokens.data && !tokens.error && <p className="muted">Loading tokens…</p>}
      {tokens.data && tokens.data.unreachableNodes.length > 0 && (
        <p className="notice notice-warn">
          {tokens.data.unreachableNodes.join(", ")} did not answer: a token is listed only while a
          majority of the nodes holds it.
        </p>
      )}
      {tokens.data && tokens.data.tokens.length === 0 && (
        <p className="notice notice-info">No live tokens{owner === "mine" ? " of yours" : ""}.</p>
      )}
      {tokens.data && tokens.data.tokens.length > 0 && (
        <TokenTable tokens={tokens.data.tokens} showOwner={owner === "all"} />
      )}
    </div>
  );
}
