"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import { isApiError } from "../_queries/api-fetch";
import { useLogin, useSession } from "../_queries/session";

const WRONG_TOKEN = {
  message:
    "That is not the admin token. Check CONSOLE_ADMIN_TOKEN (npm start prints it in local mode).",
};

// eslint-disable-next-line no-control-regex -- browsers drop tabs and newlines inside URLs: "/\t/evil" is "//evil"
const UNSAFE_IN_PATH = /[\\\x00-\x1f\x7f]/;

/**
 * Only a path of this origin: a crafted ?next= must not send the operator elsewhere after login.
 * Browsers read "\\" as "/", so "/\\host" would be "//host", another origin; the final check
 * resolves the path as the browser will and compares origins.
 */
function safeNext(next: string | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || UNSAFE_IN_PATH.test(next))
    return "/";
  try {
    const target = new URL(next, window.location.origin);
    return target.origin === window.location.origin
      ? `${target.pathname}${target.search}${target.hash}`
      : "/";
  } catch {
    return "/";
  }
}

export function LoginClient() {
  const [token, setToken] = useState("");
  const login = useLogin();
  const { data: session } = useSession();
  const router = useRouter();
  const next = useSearchParams().get("next");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ token }, { onSuccess: () => router.push(safeNext(next)) });
  };
  return (
    <div className="card stack" style={{ maxWidth: "28rem", margin: "2rem auto" }}>
      <h1>Log in</h1>
      {session?.authenticated && <p className="notice notice-ok">You are logged in as admin.</p>}
      <p className="muted">
        Paste the admin token (CONSOLE_ADMIN_TOKEN; in local mode <code>npm start</code> prints it).
        It is kept in an HttpOnly cookie, never in this page.
      </p>
      <form className="stack" onSubmit={submit}>
        <label>
          Admin token
          <input
            type="password"
            autoComplete="current-password"
            value={token}
            onChange={(event) => setToken(event.target.value)}
            required
            autoFocus
          />
        </label>
        {login.error && (
          <ErrorNotice
            error={
              isApiError(login.error) && login.error.code === "unauthorized"
                ? WRONG_TOKEN
                : login.error
            }
            title="Login failed"
          />
        )}
        <div>
          <button
            type="submit"
            className="primary"
            disabled={login.isPending || token.length === 0}
          >
            {login.isPending ? "Logging in…" : "Log in"}
          </button>
        </div>
      </form>
    </div>
  );
}
