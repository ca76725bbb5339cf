"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { lockSortSchema, type LockSort, type LockState, type SortOrder } from "@/lib/api";
import type { LocksFilter } from "../_queries/locks";

const STATES: readonly string[] = ["held", "partial", "conflict", "releasing"];

export interface OverviewParams {
  /** Pattern, state, owner label and order: all applied by the server over every lock. */
  filter: LocksFilter;
  /** Owner label whose values group the table; null: no groups. */
  groupBy: string | null;
}

/** The URL's `sort` (older links said `held`); anything else: by resource. */
function sortOf(text: string | null): LockSort {
  if (text === "held") return "heldFor";
  return lockSortSchema.safeParse(text).data ?? "resource";
}

function parse(params: URLSearchParams): OverviewParams {
  const state = params.get("state");
  return {
    filter: {
      match: params.get("match") ?? "",
      state: state && STATES.includes(state) ? (state as LockState) : null,
      owner: params.get("owner") ?? "",
      sort: sortOf(params.get("sort")),
      order: params.get("dir") === "desc" ? "desc" : "asc",
    },
    groupBy: params.get("group") || null,
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
  const { sort, order } = params.filter;
  const toggleSort = useCallback(
    (key: LockSort) => {
      const direction: SortOrder = sort === key && order === "asc" ? "desc" : "asc";
      update({
        sort: key === "resource" && direction === "asc" ? null : key,
        dir: direction === "asc" ? null : "desc",
      });
    },
    [update, sort, order],
  );

  return { ...params, setMatch, setState, setOwner, setGroupBy, toggleSort };
}
