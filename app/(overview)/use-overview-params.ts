"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import type { LockState } from "@/lib/api/locks";
import type { LocksFilter } from "../_queries/locks";
import { LOCK_SORT_KEYS, type LockSortKey, type SortDirection } from "./sort-locks";

const STATES: readonly string[] = ["held", "partial", "conflict", "releasing"];

export interface OverviewParams {
  filter: LocksFilter;
  /** Owner label filter as typed: "service=billing", or a bare label name. Applied in the browser. */
  owner: string;
  /** Owner label whose values group the table; null: no groups. */
  groupBy: string | null;
  sortKey: LockSortKey;
  sortDirection: SortDirection;
}

function parse(params: URLSearchParams): OverviewParams {
  const state = params.get("state");
  const sort = params.get("sort");
  return {
    filter: {
      match: params.get("match") ?? "",
      state: state && STATES.includes(state) ? (state as LockState) : null,
    },
    owner: params.get("owner") ?? "",
    groupBy: params.get("group") || null,
    sortKey: LOCK_SORT_KEYS.find((key) => key === sort) ?? "resource",
    sortDirection: params.get("dir") === "desc" ? "desc" : "asc",
  };
}

/** Filters and sort live in the URL, so every view of the overview is a link that can be shared. */
export function useOverviewParams() {
  const searchParams = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const params = useMemo(() => parse(new URLSearchParams(searchParams.toString())), [searchParams]);

  const update = useCallback(
    (changes: Record<string, string | null>) => {
      const next = new URLSearchParams(searchParams.toString());
      for (const [name, value] of Object.entries(changes)) {
        if (value) next.set(name, value);
        else next.delete(name);
      }
      const query = next.toString();
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [router, pathname, searchParams],
  );

  const setMatch = useCallback((match: string) => update({ match: match || null }), [update]);
  const setState = useCallback((state: LockState | null) => update({ state }), [update]);
  const setOwner = useCallback(
    (owner: string) => update({ owner: owner.trim() || null }),
    [update],
  );
  const setGroupBy = useCallback((group: string | null) => update({ group }), [update]);
  const toggleSort = useCallback(
    (key: LockSortKey) => {
      const direction = params.sortKey === key && params.sortDirection === "asc" ? "desc" : "asc";
      update({
        sort: key === "resource" && direction === "asc" ? null : key,
        dir: direction === "asc" ? null : "desc",
      });
    },
    [update, params.sortKey, params.sortDirection],
  );

  return { ...params, setMatch, setState, setOwner, setGroupBy, toggleSort };
}
