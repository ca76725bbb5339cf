import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "./api-fetch";

/** The one place query defaults are set: every page polls through these. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 1_000,
        // A hidden tab stops polling; it refetches as soon as it is visible again.
        refetchIntervalInBackground: false,
        refetchOnWindowFocus: true,
        // A 4xx will not change by asking again; network blips and 5xx get two more tries.
        retry: (failureCount, error) =>
          !(error instanceof ApiError && error.status < 500) && failureCount < 2,
      },
      mutations: { retry: false },
    },
  });
}
