"use client";

import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { makeQueryClient } from "./_queries/make-query-client";

export function Providers({ children }: { children: ReactNode }) {
  // One client per browser tab, created on first render and kept across navigations.
  const [queryClient] = useState<QueryClient>(makeQueryClient);
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
