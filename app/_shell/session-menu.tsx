"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import type { SessionResponse } from "@/lib/api";
import { useSession, useSignOut } from "../_queries/session";

/** "Alice Admin · admin", "break-glass · admin", "Nora · no role". */
function whoAndRole(session: SessionResponse): { who: string; role: string } {
  const who =
    session.credential === "break-glass"
      ? "break-glass"
      : (session.person?.name ?? session.person?.email ?? session.person?.subject ?? "signed in");
  return { who, role: session.role ?? "no role" };
}

/** Who you are to the console: a sign-in link, or your name and role with a sign-out button. */
export function SessionMenu() {
  const { data: session } = useSession();
  const signOut = useSignOut();
  const router = useRouter();
  const pathname = usePathname();
  if (!session) return <span className="muted">…</span>;

  if (!session.authenticated) {
    const next = pathname === "/login" ? "/" : pathname;
    return (
      <Link className="button" href={`/login?next=${encodeURIComponent(next)}`}>
        Sign in
      </Link>
    );
  }
  const { who, role } = whoAndRole(session);
  return (
    <span className="row">
      <span title={session.person?.email ?? undefined}>{who}</span>
      <span className="badge badge-held">{role}</span>
      {/* Behind an authenticating proxy, the proxy owns the sign-in: signing out is its page's. */}
      {session.credential !== "proxy" && (
        <button
          type="button"
          onClick={() => signOut.mutate(undefined, { onSuccess: () => router.refresh() })}
          disabled={signOut.isPending}
        >
          Sign out
        </button>
      )}
    </span>
  );
}
