"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { ErrorNotice } from "@/components/ui/error-notice";
import { isApiError } from "../_queries/api-fetch";
import { useLogin, useSession } from "../_queries/session";
import { isSignInFailure, SIGN_IN_FAILURE_TEXT } from "./sign-in-failure";

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

/** Why the last sign-in did not happen, from the callback's redirect: the reason and its detail. */
function SignInFailureNotice() {
  const query = useSearchParams();
  const failure = query.get("sign_in_error");
  if (!isSignInFailure(failure)) return null;
  const detail = query.get("detail");
  return (
    <div role="alert" className="notice notice-error">
      <strong>Sign-in failed.</strong> {SIGN_IN_FAILURE_TEXT[failure]}
      {detail && (
        <>
          {" "}
          <span className="muted">({detail})</span>
        </>
      )}
    </div>
  );
}

/** The shared admin token, for when the identity provider is what is down. */
function BreakGlassForm({ next }: { next: string | null }) {
  const [token, setToken] = useState("");
  const login = useLogin();
  const router = useRouter();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ token }, { onSuccess: () => router.push(safeNext(next)) });
  };
  return (
    <form className="stack" onSubmit={submit}>
      <label>
        Admin token
        <input
          type="password"
          autoComplete="current-password"
          value={token}
          onChange={(event) => setToken(event.target.value)}
          required
        />
      </label>
      {login.error && (
        <ErrorNotice
          error={
            isApiError(login.error) &&
            login.error.code === "unauthorized" &&
            login.error.message.startsWith("Wrong admin token.")
              ? WRONG_TOKEN
              : login.error
          }
          title="Sign-in failed"
        />
      )}
      <div>
        <button type="submit" disabled={login.isPending || token.length === 0}>
          {login.isPending ? "Signing in…" : "Sign in with the admin token"}
        </button>
      </div>
    </form>
  );
}

export function LoginClient() {
  const { data: session } = useSession();
  const query = useSearchParams();
  // Checked where it is followed: safeNext here (it reads window), safeNextPath on the server.
  const next = query.get("next");
  const signedOut = query.get("signed_out") === "1";
  return (
    <div className="card stack" style={{ maxWidth: "32rem", margin: "2rem auto" }}>
      <h1>Sign in</h1>
      {signedOut && <p className="notice notice-ok">You are signed out.</p>}
      {session?.authenticated && (
        <p className="notice notice-ok">
          You are signed in
          {session.person?.name ? ` as ${session.person.name}` : ""} ({session.role ?? "no role"}).
        </p>
      )}
      <SignInFailureNotice />
      {session?.signIn && (
        <p>
          <a
            className="button primary"
            href={`${session.signIn.loginUrl}?next=${encodeURIComponent(next ?? "/")}`}
          >
            Sign in with {session.signIn.providerName}
          </a>
        </p>
      )}
      {session && !session.signIn && (
        <p className="muted">
          No identity provider is set up on this console (CONSOLE_OIDC_ISSUER): sign in with the
          admin token.
        </p>
      )}
      <section className="stack" aria-labelledby="break-glass-heading">
        <h2 id="break-glass-heading">Break-glass</h2>
        {session && !session.breakGlassEnabled ? (
          <p className="muted">The break-glass admin token is turned off on this console.</p>
        ) : (
          <>
            <p className="muted">
              The shared admin token (CONSOLE_ADMIN_TOKEN; in local mode <code>npm start</code>{" "}
              prints it), for when the identity provider is down. Every use is audited as
              break-glass. It is kept in an HttpOnly cookie, never in this page.
            </p>
            <BreakGlassForm next={next} />
          </>
        )}
      </section>
    </div>
  );
}
