"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import { useHydrated } from "@/hooks/use-hydrated";
import { useSession } from "../_queries/session";

/** Renders its children once reads are allowed: open reads, or after a sign-in when reads are closed. */
export function ReadGate({ children }: { children: ReactNode }) {
  const { data: session, error, isPending } = useSession();
  const hydrated = useHydrated();
  if (!hydrated || isPending) return <p className="muted">Loading…</p>;
  if (error) return <ErrorNotice error={error} title="Cannot reach the console" />;
  if (!session.publicRead && !session.authenticated) {
    return (
      <div className="notice notice-info">
        This console shows locks to signed-in people only. <Link href="/login">Sign in</Link>
      </div>
    );
  }
  return children;
}
