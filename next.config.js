const isDev = process.env.NODE_ENV === "development";

/**
 * Content Security Policy without nonces, as Next.js documents it ("Without Nonces" in
 * node_modules/next/dist/docs/01-app/02-guides/content-security-policy.md): Next.js inlines its
 * hydration scripts and styles, so 'unsafe-inline' stays for both; nonces would force every page
 * to render per request. What matters most here is frame-ancestors 'none': no page may frame the
 * console (clickjacking of force-release). React needs 'unsafe-eval' in development only.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isDev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Sent with every response (pages, API, static files); docs/security.md explains each. */
const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "no-referrer" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Cross-Origin-Resource-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // NEXT_DIST_DIR lets a second build (e.g. a server smoke test) run beside the one in .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // ioredis and pino are Node libraries: load them at run time instead of bundling them.
  serverExternalPackages: ["ioredis", "pino", "prom-client"],
  // CI type-checks the whole tree once (`npm run typecheck`, beside this build in .ci/run); the
  // build's own check of the same files would only repeat it. Everyone else's build checks.
  typescript: { ignoreBuildErrors: process.env.CONSOLE_BUILD_TYPECHECKED === "1" },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
