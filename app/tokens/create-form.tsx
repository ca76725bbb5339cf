"use client";

import { useState, type FormEvent } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import type { SessionResponse } from "@/lib/api";
import { useCreateToken } from "../_queries/tokens";

const EXPIRIES = [
  { hours: 1, label: "1 hour" },
  { hours: 24, label: "1 day" },
  { hours: 7 * 24, label: "7 days" },
  { hours: 30 * 24, label: "30 days" },
  { hours: 90 * 24, label: "90 days" },
];

const listOf = (text: string) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/** One grant within one of the person's own; the secret is shown once, after creation. */
export function CreateTokenForm({
  grants,
  maxExpiresInHours,
}: {
  grants: SessionResponse["grants"];
  maxExpiresInHours: number | null;
}) {
  const create = useCreateToken();
  const [name, setName] = useState("");
  const [ruleIndex, setRuleIndex] = useState(0);
  const [role, setRole] = useState<"viewer" | "operator" | "admin">("viewer");
  const [resources, setResources] = useState("");
  const [services, setServices] = useState("");
  const [hours, setHours] = useState(24);
  const within = grants[ruleIndex];
  const expiries = EXPIRIES.filter(
    (each) => maxExpiresInHours === null || each.hours <= maxExpiresInHours,
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const resourceList = listOf(resources);
    const serviceList = listOf(services);
    create.mutate({
      name,
      grants: [
        {
          role,
          ...(resourceList.length > 0 ? { resources: resourceList } : {}),
          ...(serviceList.length > 0 ? { services: serviceList } : {}),
        },
      ],
      expiresInHours: hours,
    });
  };
  if (grants.length === 0) {
    return <p className="notice notice-info">You have no role, so a token could do nothing.</p>;
  }
  return (
    <form className="stack card" onSubmit={submit} aria-label="Create a token">
      <h2>Create a token</h2>
      <label className="stack">
        Name (the audit shows it)
        <input
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder="ci-unlock"
        />
      </label>
      <label className="stack">
        Within your grant
        <select
          value={ruleIndex}
          onChange={(event) => {
            const index = Number(event.target.value);
            const grant = grants[index]!;
            setRuleIndex(index);
            setRole(grant.role);
            setResources(grant.resources?.join(", ") ?? "");
            setServices(grant.services?.join(", ") ?? "");
          }}
        >
          {grants.map((grant, index) => (
            <option key={grant.rule} value={index}>
              {grant.role} — {grant.rule}
            </option>
          ))}
        </select>
      </label>
      <label className="stack">
        Role
        <select value={role} onChange={(event) => setRole(event.target.value as typeof role)}>
          {(["viewer", "operator", "admin"] as const).map((each) => (
            <option key={each} value={each}>
              {each}
            </option>
          ))}
        </select>
      </label>
      <label className="stack">
        Resources (globs, comma-separated; empty:{" "}
        {within?.resources ? "required" : "every resource"})
        <input value={resources} onChange={(event) => setResources(event.target.value)} />
      </label>
      <label className="stack">
        Services (owner labels, comma-separated; empty:{" "}
        {within?.services ? "required" : "every service"})
        <input value={services} onChange={(event) => setServices(event.target.value)} />
      </label>
      <label className="stack">
        Expires after
        <select value={hours} onChange={(event) => setHours(Number(event.target.value))}>
          {expiries.map((each) => (
            <option key={each.hours} value={each.hours}>
              {each.label}
            </option>
          ))}
        </select>
      </label>
      <div className="row">
        <button type="submit" disabled={create.isPending || name.length === 0}>
          {create.isPending ? "Creating…" : "Create token"}
        </button>
      </div>
      {create.error && <ErrorNotice error={create.error} title="The token was not created" />}
      {create.data && (
        <div className="notice notice-warn" role="status">
          <p>
            Token <code>{create.data.token.name}</code> created. Copy its secret now: it is shown
            this once, and the console keeps only a hash of it.
          </p>
          <code className="wrap-anywhere" aria-label="Token secret">
            {create.data.secret}
          </code>
        </div>
      )}
    </form>
  );
}
