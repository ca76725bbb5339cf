import type { SignInFailure } from "@/lib/api";

/** What a person reads when the sign-in did not happen (/login?sign_in_error=…), per reason. */
export const SIGN_IN_FAILURE_TEXT: Record<SignInFailure, string> = {
  not_configured:
    "Sign-in with an identity provider is not set up on this console (CONSOLE_OIDC_ISSUER). Use the break-glass admin token below.",
  provider_unreachable:
    "The identity provider cannot be reached right now, so nobody can sign in with it. Try again later; in an emergency, use the break-glass admin token below.",
  refused:
    "The identity provider's answer did not pass the console's checks, so the sign-in was refused. Start again; if it keeps failing, an admin should read the console's log.",
  provider_said_no: "The identity provider did not sign you in.",
  attempt_expired: "The sign-in took too long, or began in another browser or tab. Start it again.",
  nodes_unavailable:
    "No Redis node answered, so the console cannot check your sign-in yet. Try again when a node is up.",
};

export function isSignInFailure(value: string | null): value is SignInFailure {
  return value !== null && Object.hasOwn(SIGN_IN_FAILURE_TEXT, value);
}
