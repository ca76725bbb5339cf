"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useLogout, useSession } from "../_queries/session";

/** Who you are to the console: a login link, or the admin badge with a logout button. */
export function SessionMenu() {
  const { data: session } = useSession();
  const logout = useLogout();
  const router = useRouter();
  const pathname = usePathname();
  if (!session) return <span className="muted">…</span>;

  if (!session.authenticated) {
    const next = pathname === "/login" ? "/" : pathname;
    return (
      <Link className="button" href={`/login?next=${encodeURIComponent(next)}`}>
        Log in
      </Link>
    );
  }
  return (
    <span className="row">
      <span className="badge badge-held">admin</span>
      <button
        type="button"
        onClick={() => logout.mutate(undefined, { onSuccess: () => router.refresh() })}
        disabled={logout.isPending}
      >
        Log out
      </button>
    </span>
  );
}
