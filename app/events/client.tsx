"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { HistoryHorizonNotice } from "@/components/locks/history-horizon";
import { TRANSITION_TEXT } from "@/components/locks/transition-kind";
import { TransitionTable } from "@/components/locks/transition-table";
import { ErrorNotice } from "@/components/ui/error-notice";
import { type TimeZoneChoice } from "@/components/ui/format";
import { transitionKindSchema } from "@/lib/api";
import { useTransitions, type LiveState, type TransitionFilters } from "../_queries/events";
import { rangeOf, sinceFor, ViewControls, zoneHeading, type TimeRange } from "./view-controls";

/** The "Problems" choice: `?problems=1` (isAlarming), not a kind, since an overlap is an acquisition. */
const PROBLEMS = "problems";
const KIND_CHOICES = [
  { value: "", label: "All kinds" },
  // Short: a select is as wide as its longest option, and this one must fit a 390 px phone.
  { value: PROBLEMS, label: "Problems only" },
  ...transitionKindSchema.options.map((kind) => ({
    value: kind,
    label: TRANSITION_TEXT[kind].label,
  })),
];

/** How the feed is viewed, also in the URL: `?range=15m&since=<epoch ms>` and `?utc=1`. */
interface ViewParams {
  range: TimeRange;
  zone: TimeZoneChoice;
}

/**
 * The filters live in the URL (?match=&kind=&owner=&since=), so a filtered feed is a link; a
 * range's start is fixed when chosen (`since`), so the link shows the same stretch of history.
 */
function useFilterParams(): [
  TransitionFilters & ViewParams,
  (patch: Record<string, string | undefined>) => void,
] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = {
    match: params.get("match") ?? undefined,
    kind: params.get("kind") ?? undefined,
    owner: params.get("owner") ?? undefined,
    problems: params.get("problems") ?? undefined,
    since: params.get("since") ?? undefined,
    range: rangeOf(params.get("range")),
    zone: (params.get("utc") === "1" ? "utc" : "local") as TimeZoneChoice,
  };
  const setParams = (patch: Record<string, string | undefined>) => {
    const query = new URLSearchParams(params.toString());
    for (const [name, value] of Object.entries(patch))
      if (value) query.set(name, value);
      else query.delete(name);
    const text = query.toString();
    router.replace(text ? `${pathname}?${text}` : pathname, { scroll: false });
  };
  return [filters, setParams];
}

/** A free-text filter, applied with the form's button (each keystroke would be a new stream). */
function TextFilter(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
}) {
  return (
    <label className="row">
      {props.label}
      <input
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        placeholder={props.placeholder}
        maxLength={256}
      />
    </label>
  );
}

/** Says in words whether the feed is live; while it is not, when the page tries again. */
function LiveNotice({ live }: { live: LiveState }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (live.state !== "retrying") return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [live]);
  if (live.state === "off") return null;
  if (live.state === "live")
    return (
      <p role="status" data-testid="live-status" data-live="live" className="muted">
        Live: new transitions appear as they happen.
      </p>
    );
  if (live.state === "connecting")
    return (
      <p role="status" data-testid="live-status" data-live="connecting" className="muted">
        Connecting to the live feed…
      </p>
    );
  if (live.state !== "retrying") return null;
  const inS = Math.max(0, Math.ceil((live.retryAt - now) / 1_000));
  return (
    <p role="status" data-testid="live-status" data-live="retrying" className="notice notice-warn">
      Not live: the live feed was refused or lost, so new transitions are not shown and this list
      may be out of date. Reconnecting {inS > 0 ? `in ${inS} s` : "now"} (attempt {live.attempt}).
    </p>
  );
}

export function EventsClient() {
  const [{ range, zone, ...filters }, setFilters] = useFilterParams();
  const { data, error, live } = useTransitions(filters);
  const [nowMs] = useState(() => Date.now());
  const [match, setMatch] = useState(filters.match ?? "");
  const [owner, setOwner] = useState(filters.owner ?? "");
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters({ ...filters, match: match.trim(), owner: owner.trim() });
  };
  return (
    <div className="stack">
      <h1>Events</h1>
      <p className="muted">
        What happened to every lock, live: folded from the nodes&apos; keyspace notifications by the
        console, pushed to this page as it happens. Holds that expired instead of being released,
        evictions, conflicts and acquisitions that may overlap a previous holder stand out; the kind
        &ldquo;Problems only&rdquo; lists just those.
      </p>
      <form
        className="row"
        onSubmit={apply}
        aria-label="Filter events"
        style={{ flexWrap: "wrap" }}
      >
        <TextFilter label="Resource" value={match} onChange={setMatch} placeholder="orders:*" />
        <TextFilter label="Owner" value={owner} onChange={setOwner} placeholder="service=billing" />
        <label className="row">
          Kind
          <select
            value={filters.problems ? PROBLEMS : (filters.kind ?? "")}
            onChange={({ target: { value } }) =>
              setFilters(
                value === PROBLEMS
                  ? { ...filters, kind: "", problems: "1" }
                  : { ...filters, kind: value, problems: "" },
              )
            }
          >
            {KIND_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <ViewControls
        range={range}
        sinceMs={filters.since ? Number(filters.since) : null}
        zone={zone}
        nowMs={nowMs}
        onRange={(next) => setFilters({ range: next, since: sinceFor(next, Date.now()) })}
        onZone={(next) => setFilters({ utc: next === "utc" ? "1" : undefined })}
      />
      {error && <ErrorNotice error={error} title="Events unavailable" />}
      <LiveNotice live={live} />
      {data && <HistoryHorizonNotice horizon={data.horizon} />}
      {!data && !error && <p className="muted">Loading events…</p>}
      {data && data.transitions.length === 0 && (
        <p className="notice notice-info">
          No transition matches {filters.since ? "in this time range" : "since the history began"}.
        </p>
      )}
      {data && data.transitions.length > 0 && (
        <TransitionTable
          transitions={data.transitions}
          label="Lock transitions"
          zone={zone}
          zoneText={zoneHeading(zone, nowMs)}
        />
      )}
    </div>
  );
}
