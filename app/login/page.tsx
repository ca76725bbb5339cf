import type { Metadata } from "next";
import { Suspense } from "react";
import { LoginClient } from "./client";

export const metadata: Metadata = { title: "Sign in" };

export default function LoginPage() {
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <LoginClient />
    </Suspense>
  );
}
